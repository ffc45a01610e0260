"""A kernel that read or wrote memory outside every tensor: on a GPU an illegal memory access.

Under Triton's interpreter a pointer is a host address, so an int bit-cast to a pointer reaches any memory of
the process (a Python bytes object the host computes on). The worker checks every load, store and atomic of
an interpreted launch against the storages the launch may use (sandbox/launch_memory.py) and counts those
outside; a GPU would fault on them (or read another allocation's data), so the verdict is the one a device
gives a kernel that faults. Masked-off lanes are no accesses: an honest kernel masks its edges.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def judge(task: Task, report: CallReport) -> str | None:
    """Accesses of interpreted launches outside every tensor's memory."""
    if not report.stray_accesses:
        return None
    return (f"{report.stray_accesses} load/store lane(s) of Triton's interpreter reached memory outside every "
            f"tensor (first at {report.stray_first}): on a GPU an illegal memory access (an unmasked edge, or a "
            f"raw host address bit-cast to a pointer)")


CHECK = Check(
    name="launch_memory", status=Status.CRASHED, collector="launch_memory", judge=judge,
    prompt="loads or stores outside the tensors handed to a kernel (unmasked edges, raw addresses cast to pointers)",
    corpus=("rt8_interp_raw_address", "oob_unmasked_load"),
)
