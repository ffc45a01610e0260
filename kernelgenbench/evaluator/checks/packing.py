"""Packing: the candidate's code ran, or would have run, while the worker read and packed its outputs.

The worker packs only plain tensors, through accessors bound before the candidate was imported, so its
packing dispatches a fixed set of aten ops (a byte view of each storage, one copy each). Compute there, or
a hook left for it (a torch function or dispatch mode still active after the call, a method of the tensor
or storage classes replaced), means the candidate reached into the evaluator's own machinery to run after
its call returned, outside the recorders that judge its call. That is tampering, not torch_fallback: a real
kernel cannot do it by accident, and what ran may not even be compute (a hook that changes what is sent).
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport

# What transfer.pack dispatches for plain tensors; aten::copy_ at most once per packed tensor.
PACK_OPS = frozenset({"aten::detach", "aten::slice.Tensor", "aten::empty.memory_format", "aten::set_.source_Storage",
                      "aten::copy_"})


def judge(task: Task, report: CallReport) -> str | None:
    """The hooks the worker found after the call, else ops dispatched while packing beyond the packer's own."""
    packing = report.packing
    if packing is None:
        return None
    if packing.hooks:
        return "after the call: " + "; ".join(packing.hooks)
    foreign = sorted(op for op in packing.ops if op not in PACK_OPS)
    copies = packing.ops.get("aten::copy_", 0)
    tensors = packing.tensors
    if not foreign and copies <= tensors:
        return None
    return (f"aten ops dispatched while the worker packed the outputs (after the call returned): "
            f"{', '.join(foreign) or f'{copies} copies for {tensors} tensor(s)'}")


CHECK = Check(
    name="packing", status=Status.TAMPERING, collector="worker", judge=judge,
    prompt="Patching torch (Tensor methods, torch functions) or leaving a dispatch or function mode pushed "
           "after your call returns.",
    corpus=("patched_tensor_method", "leftover_mode"),
)
