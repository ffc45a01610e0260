"""No Triton launch: the call produced its outputs without running a Triton kernel.

A launch counts when the launch counter saw one (every compiled kernel's launcher, the interpreter) or, on
an accelerator, when the profiler saw a device kernel Triton compiled in this worker. A call whose outputs
and written arguments are all empty tensors needs no launch (a correct kernel may skip it); neither does one
whose expected result takes no computing (evaluator/workless.py: the judge then skips this check).
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.torch_fallback import CHECK as TORCH_FALLBACK
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def needs_no_launch(task: Task, report: CallReport) -> bool:
    """True when every output leaf and every mutable argument is a tensor with no elements."""
    sizes = report.sizes
    if sizes is None:
        return False
    returned = list(sizes.returns)
    # a non-tensor output (a scalar) is a result like any other: only a None leaf holds nothing
    if any(s is None and not meta.type.endswith("NoneType") for s, meta in zip(returned, report.leaves, strict=False)):
        return False
    written = [sizes.args[p.name] for p in task.mutable_params if p.name in sizes.args]
    tensors = [s for s in returned if s is not None] + written
    return bool(tensors) and all(s[0] == 0 for s in tensors)


def _triton_kernel_ran(report: CallReport) -> bool:
    profile = report.profile
    return profile.available and any(k.origin == "triton" for k in profile.kernels)


def judge(task: Task, report: CallReport) -> str | None:
    """Fires when neither the launch counter nor the profiler saw a Triton kernel, on a call that needs one."""
    if report.launches or _triton_kernel_ran(report) or needs_no_launch(task, report):
        return None
    return "no Triton kernel was launched during the call"


CHECK = Check(name="no_triton_launch", status=Status.NO_TRITON_LAUNCH, collector="launches", judge=judge,
              prompt=TORCH_FALLBACK.prompt,  # its line says that at least one Triton kernel must launch
              corpus=("no_launch",))
