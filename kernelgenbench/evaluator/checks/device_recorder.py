"""The device activity recorder switched off: the profiler worked before the candidate was imported, but
during the call it did not run or lost its marks, or it saw no device kernel though Triton launches were
counted, or it saw other launch ranges than the launch counter opened."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.no_launch import needs_no_launch
from kernelgenbench.evaluator.status import Status

_OFF = "device activity recorder switched off"


def judge(task: Task, report: Mapping[str, Any]) -> str | None:
    """What the profile lacks that a working recorder always has."""
    profile = report.get("profile")
    if report.get("event") != "result":
        return None  # the call raised (a device error also stops the session): the exception decides
    if not isinstance(profile, Mapping) or not profile.get("expected"):
        return None  # this process never had a working profiler: its absence is not evidence
    if not profile.get("available"):
        return f"{_OFF}: {profile.get('reason') or 'no profile'}"
    seen, opened = int(profile.get("launch_ranges") or 0), int(report.get("launch_ranges") or 0)
    if seen != opened:  # more: ranges forged to hide ops; fewer: events lost while the recorder was off
        return f"{_OFF}: the profiler saw {seen} launch range(s), the launch counter opened {opened}"
    if profile.get("device", "cpu") == "cpu":
        return None
    if profile.get("call_stream") is None:
        return f"{_OFF}: the call's stream marker kernel was not recorded"
    busy = profile.get("kernels") or profile.get("memcpy")
    if report.get("launches") and not busy and not needs_no_launch(task, report):
        n = sum(report["launches"].values())
        return f"{_OFF}: {n} Triton launch(es) counted but no device kernel recorded"
    return None


CHECK = Check(
    name="device_recorder", status=Status.TAMPERING, collector="activity", judge=judge,
    prompt="Starting, stopping or replacing a profiler session (torch.profiler, CUPTI) during a call.",
    corpus=("stop_profiler",),
)
