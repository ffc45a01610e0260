"""The call raised: runtime error, compile error, crash or memory, by what was raised."""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport

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


def judge(task: Task, report: CallReport) -> tuple[Status, str] | None:
    """The exception's status and its type, message and traceback."""
    if report.event != "error":
        return None
    status = classify_exception(report.exc_type, report.message, at_import=False)
    return status, f"{report.exc_type}: {report.message}\n{report.traceback}".strip()


CHECK = Check(name="exception", status=Status.RUNTIME_ERROR, collector="worker", judge=judge,
              prompt="Raising from the entry point on any workload (out of memory counts as memory_exceeded).",
              corpus=("raises", "rt13_class_attr_is_class", "rt13_class_descriptor_attr",
                      "rt13_class_instance_dict_method", "rt13_class_stdlib_wrapper",
                      "rt12_int_subclass_method_mm", "rt14_host_tl_tensor_arg"))
