"""Torch compute inside a Triton launch: under the interpreter a kernel body is Python, and a plain function
it calls can run torch ops; compiled launches dispatch none. Only the interpreter's own argument copies
(host aliases with new_empty/set_, copy_ back per argument storage) are excused."""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.torch_fallback import CHECK as TORCH_FALLBACK
from kernelgenbench.evaluator.checks.torch_fallback import fmt_ops
from kernelgenbench.evaluator.dispatch_guard import compute_ops
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def judge(task: Task, report: CallReport) -> str | None:
    """Compute among the dispatch recorder's in-launch ops, then among the profiler's."""
    compute = compute_ops(report.ops_in_launch, category=task.category, in_launch=True)
    profile = report.profile
    if not compute and profile.available:
        compute = compute_ops(profile.cpu_ops_in_launch, category=task.category, profiler=True, in_launch=True,
                              parts=profile.cpu_op_parts, schemas=profile.op_schemas)
    return f"torch compute inside a Triton launch: {fmt_ops(compute)}" if compute else None


CHECK = Check(
    name="launch_ops", status=Status.TORCH_FALLBACK, collector="dispatch", judge=judge,
    prompt=TORCH_FALLBACK.prompt,  # torch compute hidden inside a launch is still torch compute
    corpus=("compute_in_launch", "rt8_set_storage_in_launch", "rt11_constexpr_dunder_inlaunch"),
)
