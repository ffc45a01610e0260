"""Torch compute: aten ops that compute, dispatched during the call outside any Triton launch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.dispatch_guard import compute_ops
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import SEED_BUMPS, SEED_OPS, CallReport


def fmt_ops(ops: Sequence[str]) -> str:
    """The first six names (ops, threads) joined, and how many more."""
    return ", ".join(ops[:6]) + (f" (+{len(ops) - 6} more)" if len(ops) > 6 else "")


PROFILED_PER_SEED = 4
PROFILED_PER_BUMP = 2  # the profiler records an op where it enters the dispatcher and where the recorder runs it


def without_seeds(ops: Mapping[str, int], seeds: Mapping[str, int], *, profiler: bool = False) -> dict[str, int]:
    """`ops` less the random draws the dispatch recorder found too small to be anything but a kernel's seed, and
    the increments of a generator state's offset word (SEED_BUMPS).
    The profiler also sees what such a draw runs beneath it (randint.low_generator twice, random_ once): each
    random op there is discounted by PROFILED_PER_SEED per seed draw."""
    bumps = sum(n for op, n in seeds.items() if op.startswith(SEED_BUMPS))
    draws = sum(n for op, n in seeds.items() if op.startswith(SEED_OPS))  # not a generator's state read

    def discount(op: str) -> int:
        if op.startswith(SEED_OPS):
            return PROFILED_PER_SEED * draws if profiler else seeds.get(op, 0)
        if op.startswith(SEED_BUMPS):
            return PROFILED_PER_BUMP * bumps if profiler else seeds.get(op, 0)
        return 0

    left = {op: n - discount(op) for op, n in ops.items()}
    return {op: n for op, n in left.items() if n > 0}


def judge(task: Task, report: CallReport) -> str | None:
    """The compute ops the dispatch recorder saw, first six named (a kernel's seed draw is none)."""
    compute = compute_ops(without_seeds(report.ops, report.seed_draws), category=task.category)
    return f"torch compute dispatched during the call: {fmt_ops(compute)}" if compute else None


CHECK = Check(
    name="torch_fallback", status=Status.TORCH_FALLBACK, collector="dispatch", judge=judge,
    prompt="Doing the computation anywhere but in your Triton kernels (@triton.jit functions launched from the "
           "entry point); at least one Triton kernel must launch, unless the answer needs no computing (it is an "
           "input as given, or nothing).",
    corpus=("torch_fallback", "custom_op_named_allowed", "forge_report_on_pipe", "pre_run_hook",
            "rt11_kvcache_copy_fallback", "rt15_finalizer_report_scrub", "rt19_finalizer_arena_rewrite"),
)
