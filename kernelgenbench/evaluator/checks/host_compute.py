"""Host compute on an accelerator: copies between host and device, during the call, as large as the data.

Computing on the host means bringing the inputs over (device to host) or sending the results back (host
to device). A copy of a few bytes (a count read with `.item()`, a small shape table) is normal; copies in
one direction adding up to the largest input (device to host) or the largest output (host to device) are
the data itself. Workloads whose tensors are all under `FLOOR_BYTES` are not judged: too small to tell.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport

FLOOR_BYTES = 1024


def _largest(sizes: list[tuple[int, int] | None]) -> int:
    return max((s[1] for s in sizes if s is not None), default=0)


def _output_off_device(report: CallReport, device: str) -> bool:
    kind = device.split(":", 1)[0]
    return any(m.device.split(":", 1)[0] != kind for m in report.leaves if m.device)


def judge(task: Task, report: CallReport) -> str | None:
    """The copied bytes per direction against the largest input and output."""
    profile, sizes = report.profile, report.sizes
    if not profile.available or profile.device == "cpu":
        return None
    if sizes is None or _output_off_device(report, profile.device):
        return None  # an output left on the host is judged as such (incorrect_device), not as host compute
    args = sizes.args
    mutable = {p.name for p in task.mutable_params}
    largest_in = _largest(list(args.values()))
    largest_out = _largest(list(sizes.returns) + [v for k, v in args.items() if k in mutable])
    moved = {"DtoH": 0, "HtoD": 0}
    for copy in profile.memcpy:
        if copy.kind in moved:
            moved[copy.kind] += copy.bytes
    if largest_in >= FLOOR_BYTES and moved["DtoH"] >= largest_in:
        return (f"{moved['DtoH']} bytes copied device to host during the call (the largest input is "
                f"{largest_in} bytes): computing on the host")
    if largest_out >= FLOOR_BYTES and moved["HtoD"] >= largest_out:
        return (f"{moved['HtoD']} bytes copied host to device during the call (the largest output is "
                f"{largest_out} bytes): computing on the host")
    return None


CHECK = Check(
    name="host_compute", status=Status.HOST_COMPUTE, collector="activity", judge=judge,
    prompt="Copying inputs to the host or results from it to compute there (numpy, Python, CPU torch).",
    corpus=("host_copy",),  # gpu=host_compute: only an accelerator has copies to see
)
