"""The precision policy every timed and checked call runs under, stated in every result."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch


@contextlib.contextmanager
def precision_policy(*, allow_tf32: bool = False) -> Iterator[dict[str, Any]]:
    """Run the block with TF32 matmuls/convolutions on or off (off unless a task allows it); yield the policy."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32, torch.get_float32_matmul_precision())
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    torch.backends.cudnn.allow_tf32 = allow_tf32
    torch.set_float32_matmul_precision("high" if allow_tf32 else "highest")
    try:
        yield {"tf32": allow_tf32, "float32_matmul_precision": torch.get_float32_matmul_precision()}
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved[0], saved[1]
        torch.set_float32_matmul_precision(saved[2])
