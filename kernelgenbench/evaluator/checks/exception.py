"""The call raised: runtime error, compile error, crash or memory, by what was raised."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status

_CRASH_MARKERS = ("illegal memory access", "cuda error", "hip error", "device-side assert", "acceleratorerror",
                  "unspecified launch failure", "misaligned address")
_MEMORY_MARKERS = ("out of memory", "can't allocate memory", "outofmemoryerror", "memoryerror", "cannot allocate memory")


def classify_exception(exc_type: str, message: str, *, at_import: bool) -> Status:
    """Status for an exception the candidate raised (at import or in its call)."""
    text = f"{exc_type} {message}".lower()
    if any(m in text for m in _MEMORY_MARKERS):
        return Status.MEMORY_EXCEEDED
    if any(m in text for m in _CRASH_MARKERS):
        return Status.CRASHED
    if at_import or "compilationerror" in text or "triton.compiler" in text:
        return Status.COMPILE_ERROR
    return Status.RUNTIME_ERROR


def judge(task: Task, report: Mapping[str, Any]) -> tuple[Status, str] | None:
    """The exception's status and its type, message and traceback."""
    if report.get("event") != "error":
        return None
    status = classify_exception(str(report.get("exc_type", "")), str(report.get("message", "")), at_import=False)
    return status, f"{report.get('exc_type')}: {report.get('message')}\n{report.get('traceback', '')}".strip()


CHECK = Check(name="exception", status=Status.RUNTIME_ERROR, collector="worker", judge=judge,
              prompt="Raising from the entry point on any workload (out of memory counts as memory_exceeded).",
              corpus=("raises",))
