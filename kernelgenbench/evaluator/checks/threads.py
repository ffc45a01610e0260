"""Threads judged by what they do: one alive when a call starts or ends that was not there before the
candidate was imported, or one started during a call (sandbox/threads.py collects both)."""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def _names(items: tuple[str, ...]) -> str:
    return ", ".join(items[:6]) + (f" (+{len(items) - 6} more)" if len(items) > 6 else "")


def judge(task: Task, report: CallReport) -> str | None:
    """Every kind of thread evidence found in the call, joined."""
    threads = report.threads
    if threads is None:
        return None
    at_start = threads.at_start
    marks = []
    if at_start:
        marks.append(f"thread(s) alive when the call started that were not there before the import: {_names(at_start)}")
    if threads.started:
        marks.append(f"thread(s) started during the call: {_names(threads.started)}")
    left = tuple(t for t in threads.at_end if t not in at_start)
    if left:
        marks.append(f"thread(s) left running after the call: {_names(left)}")
    return "; ".join(marks) or None


CHECK = Check(
    name="threads", status=Status.TAMPERING, collector="threads", judge=judge,
    prompt="Starting threads during a call, or leaving threads running after your module is imported.",
    corpus=("thread",),
)
