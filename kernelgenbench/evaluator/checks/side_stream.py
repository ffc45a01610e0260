"""Side streams judged by where kernels ran: device kernel activity on a stream other than the call's.

A stream object that runs nothing is not a side stream; a kernel on another stream escapes the caller's
stream-ordered events (and its timing).
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def judge(task: Task, report: CallReport) -> str | None:
    """The kernels (name, stream, count) that ran on another stream than the call's."""
    profile = report.profile
    if not profile.available or profile.call_stream is None:
        return None
    stream = profile.call_stream
    side = [k for k in profile.kernels if k.stream != stream]
    if not side:
        return None
    shown = ", ".join(f"{k.name[:80]} (stream {k.stream}, {k.count}x)" for k in side[:5])
    return f"device kernels ran on a side stream, not the call's stream {stream}: {shown}"


CHECK = Check(
    name="side_stream", status=Status.TAMPERING, collector="activity", judge=judge,
    prompt="Running kernels on any stream but the caller's current stream.",
    corpus=("side_stream",),
)
