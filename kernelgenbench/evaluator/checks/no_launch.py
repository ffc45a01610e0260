"""No Triton launch: the call produced its outputs without running a Triton kernel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status


def judge(task: Task, report: Mapping[str, Any]) -> str | None:
    """Fires when the launch counter saw nothing."""
    return None if report.get("launches") else "no Triton kernel was launched during the call"


CHECK = Check(name="no_triton_launch", status=Status.NO_TRITON_LAUNCH, collector="launches", judge=judge,
              corpus=("no_launch",))
