"""Torch compute the profiler saw at the C++ level (all threads) that the dispatch recorder did not.

The dispatch recorder is a Python dispatch mode: a candidate can switch it off from inside (disable the
mode stack, exclude the Python dispatch key, pause it) or run torch where it never looks (another thread).
The profiler's dispatcher ops of every namespace (header "profile", collected by kernelgenbench.sandbox.activity)
cannot be switched off that way, so compute among them is torch_fallback, with the mismatch as its evidence;
a composite op counts through the parts recorded beneath it, unless those show fresh memory and no compute
(it did the work natively under its own name: dispatch_guard.unexplained_composites).
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.torch_fallback import CHECK as TORCH_FALLBACK
from kernelgenbench.evaluator.checks.torch_fallback import fmt_ops, without_seeds
from kernelgenbench.evaluator.dispatch_guard import compute_ops
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def judge(task: Task, report: CallReport) -> str | None:
    """Compute ops in the profile outside launches; the dispatch recorder's are judged before this check."""
    profile = report.profile
    if not profile.available:
        return None
    compute = compute_ops(without_seeds(profile.cpu_ops, report.seed_draws, profiler=True), category=task.category, profiler=True,
                          parts=profile.cpu_op_parts, schemas=profile.op_schemas)
    if not compute:
        return None
    return (f"torch compute recorded by the profiler but not by the dispatch recorder (it was switched off or "
            f"bypassed, e.g. by another thread): {fmt_ops(compute)}")


CHECK = Check(
    name="profiled_ops", status=Status.TORCH_FALLBACK, collector="activity", judge=judge,
    prompt=TORCH_FALLBACK.prompt,  # the same rule, seen below Python
    corpus=("disable_modes", "exclude_python_key", "raw_thread", "pop_recorder", "getattr_ops_aten", "fbgemm_composite_mm",
            "nonaten_namespace_mm"),
)
