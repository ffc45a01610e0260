"""A random op whose draws were made before the call: its kernel reads a pool filled earlier.

The work of a sampler is drawing. A pool of random values drawn at import (by torch, numpy or Python, where no
recorder is armed) and read at a fresh offset on every call has the right distribution and draws anew on every
call, so the comparisons pass; only where the memory came from tells (red team 16). The worker collects, per
call, the storages its launches were handed or it returned that are neither an input nor made by an op of the
call (sandbox/scalars.py: `foreign`). A sampler needs none of any size: its state is a seed and an offset. A
table of constants (a ziggurat's, a few KiB) stays under the limit; a pool of random values large enough to
serve many calls without repeating does not. A smaller pool read in windows repeats within one output
(evaluator/randomness.py).
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport

FOREIGN_LIMIT = 1 << 16  # bytes of memory made before the call that a random op's call may read


def judge(task: Task, report: CallReport) -> str | None:
    """A random op's call that read memory made before it, past the limit."""
    if task.semantics != "random" or report.foreign_bytes < FOREIGN_LIMIT:
        return None
    return (f"the random op's kernels read {report.foreign_bytes} bytes of memory made before the call (neither an "
            f"input nor made by the call): values drawn in advance, not by the kernel (a sampler's state is a seed "
            f"and an offset)")


CHECK = Check(
    name="drawn_before", status=Status.HOST_COMPUTE, collector="scalars", judge=judge,
    prompt="for random ops: reading random values drawn before the call (a pool made at import)",
    corpus=("rt16_bern_import_pool", "rt18_bern_pool_int_addr"),
)
