"""Host compute on an accelerator: copies between host and device, during the call, as large as the data.

Computing on the host means bringing the inputs over (device to host) or sending the results back (host
to device). A copy of a few bytes (a count read with `.item()`, a small shape table) is normal; copies in
one direction adding up to the largest input (device to host) or the largest output (host to device) are
the data itself. Workloads whose tensors are all under `FLOOR_BYTES` are not judged: too small to tell.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status

FLOOR_BYTES = 1024


def _largest(sizes: list[Any]) -> int:
    return max((int(s[1]) for s in sizes if s is not None), default=0)


def _output_off_device(report: Mapping[str, Any], device: str) -> bool:
    kind = device.split(":", 1)[0]
    leaves = [m for m in report.get("leaves") or [] if isinstance(m, Mapping) and m.get("device")]
    return any(str(m["device"]).split(":", 1)[0] != kind for m in leaves)


def judge(task: Task, report: Mapping[str, Any]) -> str | None:
    """The copied bytes per direction against the largest input and output."""
    profile, sizes = report.get("profile"), report.get("sizes")
    if not isinstance(profile, Mapping) or not profile.get("available") or profile.get("device", "cpu") == "cpu":
        return None
    if not isinstance(sizes, Mapping) or _output_off_device(report, str(profile.get("device"))):
        return None  # an output left on the host is judged as such (incorrect_device), not as host compute
    args = dict(sizes.get("args") or {})
    mutable = {p.name for p in task.mutable_params}
    largest_in = _largest(list(args.values()))
    largest_out = _largest(list(sizes.get("returns") or []) + [v for k, v in args.items() if k in mutable])
    moved = {"DtoH": 0, "HtoD": 0}
    for copy in profile.get("memcpy") or []:
        if copy.get("kind") in moved:
            moved[copy["kind"]] += int(copy.get("bytes") or 0)
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
