"""Host compute on any device: the answer wrapped in a tensor from host values during the call.

An answer computed on the host (numpy operators on a tensor's `__array__`, a Python loop over `.tolist()`,
Python's `random`) has to come back as a tensor before a kernel can copy it into the output, and every way
to make a tensor from a list or an array (`torch.tensor`, `as_tensor`, `from_numpy`, `new_tensor`)
dispatches `aten::lift_fresh`, which the dispatch recorder sizes. Real kernel wrappers build only scalars
and small tables this way (FlagGems: pointer arrays of a grouped GEMM, a shape vector), so host data as
large as the largest output is the answer itself. Outputs under `FLOOR_ELEMS` elements are not judged.
This is the CPU path's evidence for host compute that dispatches no compute op; it does not see results
written through a numpy view of the output, which the static checks refuse by spelling.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.host_compute import CHECK as HOST_COMPUTE
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport

FLOOR_ELEMS = 256


def largest_output(task: Task, report: CallReport) -> int:
    """Elements of the largest returned leaf or declared-mutable argument after the call (0: none)."""
    if report.sizes is None:
        return 0
    mutable = {p.name for p in task.mutable_params}
    sizes = list(report.sizes.returns) + [v for k, v in report.sizes.args.items() if k in mutable]
    return max((s[0] for s in sizes if s is not None), default=0)


def judge(task: Task, report: CallReport) -> str | None:
    """Host-made tensor elements against the largest output's."""
    if report.host_built == 0:
        return None
    largest = largest_output(task, report)
    if largest < FLOOR_ELEMS or report.host_built < largest:
        return None
    return (f"{report.host_built} elements of tensor data were made from host values (a list or a numpy array: "
            f"torch.tensor, as_tensor, from_numpy) during the call, the largest output has {largest}: "
            f"computed on the host")


CHECK = Check(
    name="host_data", status=Status.HOST_COMPUTE, collector="dispatch", judge=judge,
    prompt=HOST_COMPUTE.prompt,
    corpus=("host_numpy_scalar_ctor", "host_list_in_dict", "host_python_random", "item_loop"),
)
