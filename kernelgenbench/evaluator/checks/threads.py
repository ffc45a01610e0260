"""Threads judged by what they do: one started during a call from Python; one that runs Python or used the CPU
during a call while it was not there before the candidate was imported; one still working after the call
(sandbox/threads.py collects the facts).

A library's lazy import may start a native thread pool during the first call (Liger-Kernel's first call loads
pandas and PIL, and with them 15 pool threads and jemalloc's background thread: each used 0.12 s of CPU at
start and then slept; bench/threads_probe.py on the H200). Such threads, native, asleep when the call ends and
idle after it, are not evidence; if they work during a later call, that call's report shows it.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.torch_fallback import fmt_ops
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport, ThreadSeen

IDLE_SHARE = 0.1  # of the call's wall time: a pool thread's wake-ups stay far below, a working thread does not
IDLE_FLOOR_S = 0.02  # two clock ticks: the resolution of /proc's CPU times


def _still_working(t: ThreadSeen) -> bool:
    return t.state == "R" or t.settle_cpu_s > 0


def _worked(t: ThreadSeen, elapsed_s: float) -> bool:
    return t.python or _still_working(t) or t.call_cpu_s > max(IDLE_FLOOR_S, IDLE_SHARE * elapsed_s)


def judge(task: Task, report: CallReport) -> str | None:
    """Every kind of thread evidence found in the call, joined."""
    threads = report.threads
    if threads is None:
        return None
    before = {t.name for t in threads.at_start}
    marks = []
    busy = [t.name for t in threads.at_start if _worked(t, report.elapsed_s)]
    if busy:
        marks.append("thread(s) alive when the call started that were not there before the import, running Python "
                     f"or using the CPU during the call: {fmt_ops(busy)}")
    if threads.started:
        marks.append(f"thread(s) started during the call: {fmt_ops(threads.started)}")
    left = [t.name for t in threads.at_end if t.name not in before and (t.python or _still_working(t))]
    if left:
        marks.append(f"thread(s) left running after the call: {fmt_ops(left)}")
    return "; ".join(marks) or None


CHECK = Check(
    name="threads", status=Status.TAMPERING, collector="threads", judge=judge,
    prompt="Starting threads during a call, or leaving threads running after your module is imported.",
    corpus=("thread",),
)
