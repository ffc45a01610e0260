"""Shared pytest setup: tests import helpers from this folder; GPU tests skip cleanly without a device."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def _has_accelerator() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available() or (hasattr(torch, "xpu") and torch.xpu.is_available()))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _has_accelerator():
        return
    skip = pytest.mark.skip(reason="needs an accelerator (GPU); none is visible")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
