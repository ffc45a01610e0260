"""Torch compute: aten ops that compute, dispatched during the call outside any Triton launch."""

from __future__ import annotations

from collections.abc import Sequence

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.dispatch_guard import compute_ops
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def fmt_ops(ops: Sequence[str]) -> str:
    """The first six names (ops, threads) joined, and how many more."""
    return ", ".join(ops[:6]) + (f" (+{len(ops) - 6} more)" if len(ops) > 6 else "")


def judge(task: Task, report: CallReport) -> str | None:
    """The compute ops the dispatch recorder saw, first six named."""
    compute = compute_ops(report.ops, category=task.category)
    return f"torch compute dispatched during the call: {fmt_ops(compute)}" if compute else None


CHECK = Check(
    name="torch_fallback", status=Status.TORCH_FALLBACK, collector="dispatch", judge=judge,
    prompt="Doing the computation anywhere but in your Triton kernels (@triton.jit functions launched from the "
           "entry point); at least one Triton kernel must launch, unless the answer needs no computing (it is an "
           "input as given, or nothing).",
    corpus=("torch_fallback", "custom_op_named_allowed", "forge_report_on_pipe"),
)
