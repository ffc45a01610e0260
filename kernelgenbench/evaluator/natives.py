"""The native baseline of each built-in source: the implementation a candidate is timed against.

Each function takes a task and returns a callable with the candidate's arguments, or None and why. The
source registry (kernelgenbench/sources.py) names them, so the evaluator never branches on a source.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import torch

from kernelgenbench.dataset.record import Task

Native = tuple[Callable[..., Any] | None, str]


def aten(task: Task) -> Native:
    """torch.ops.aten.<name>.<overload>: the op itself."""
    packet = getattr(torch.ops.aten, task.name)
    return getattr(packet, task.overload or "default"), ""


def vllm(task: Task) -> Native:
    """torch.ops.<namespace>.<name> of the installed vLLM, when one is importable."""
    try:
        importlib.import_module("vllm._C")
    except ImportError as exc:
        return None, f"vLLM is not importable here ({exc.__class__.__name__}): no native vLLM baseline"
    ns = task.details.get("vllm", {}).get("namespace", "_C")
    try:
        return getattr(getattr(torch.ops, ns), task.name).default, ""
    except (AttributeError, RuntimeError):
        return None, f"torch.ops.{ns}.{task.name} is not registered by the installed vLLM"


def cublas(task: Task) -> Native:
    """The cuBLAS routine through ctypes, marshalled from the record's C parameters."""
    try:
        native = importlib.import_module("kernelgenbench.evaluator.cublas_native")
    except ImportError as exc:
        return None, f"no cuBLAS binding: {exc}"
    try:
        return native.routine(task), ""
    except Exception as exc:  # noqa: BLE001 - a missing library or routine is a reason, not a crash
        return None, f"cuBLAS {task.name} unavailable: {exc}"
