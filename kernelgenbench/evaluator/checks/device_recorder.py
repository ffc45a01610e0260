"""The device activity recorder switched off: the profiler worked before the candidate was imported, but
during the call it did not run or lost its marks, or it saw no device kernel though Triton launches were
counted, or it saw other launch ranges than the launch counter opened."""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.no_launch import needs_no_launch
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport

_OFF = "device activity recorder switched off"


def judge(task: Task, report: CallReport) -> str | None:
    """What the profile lacks that a working recorder always has."""
    profile = report.profile
    if report.event != "result":
        return None  # the call raised (a device error also stops the session): the exception decides
    if not profile.expected:
        return None  # this process never had a working profiler: its absence is not evidence
    if not profile.available:
        return f"{_OFF}: {profile.reason or 'no profile'}"
    seen, opened = profile.launch_ranges, report.launch_ranges
    if seen != opened:  # more: ranges forged to hide ops; fewer: events lost while the recorder was off
        return f"{_OFF}: the profiler saw {seen} launch range(s), the launch counter opened {opened}"
    if profile.device == "cpu":
        return None
    if profile.call_stream is None:
        return f"{_OFF}: the call's stream marker kernel was not recorded"
    busy = profile.kernels or profile.memcpy
    if report.launches and not busy and not needs_no_launch(task, report):
        n = sum(report.launches.values())
        return f"{_OFF}: {n} Triton launch(es) counted but no device kernel recorded"
    return None


CHECK = Check(
    name="device_recorder", status=Status.TAMPERING, collector="activity", judge=judge,
    prompt="Starting, stopping or replacing a profiler session (torch.profiler, CUPTI) during a call.",
    corpus=("stop_profiler",),
)
