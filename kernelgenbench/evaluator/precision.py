"""The precision policy every timed and checked call runs under, stated in every result."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

import torch


@contextlib.contextmanager
def _cudnn_tf32(allow: bool) -> Iterator[None]:
    """cudnn's TF32 switch set through its flags() context.

    Importing torch.testing (OpInfo, used by the ATen extractor) freezes torch's global backend flags, after
    which plain assignment raises; the context manager is the sanctioned way and restores every flag after.
    Only the arguments this torch knows are passed, and precision settings other than TF32 are left alone.
    """
    c = torch.backends.cudnn
    known = inspect.signature(c.flags).parameters
    kw: dict[str, Any] = {"enabled": c.enabled, "benchmark": c.benchmark, "deterministic": c.deterministic,
                          "allow_tf32": allow}
    kw.update({k: None for k in ("benchmark_limit", "fp32_precision", "depthwise_kernel") if k in known})
    with c.flags(**kw):
        yield


@contextlib.contextmanager
def precision_policy(*, allow_tf32: bool = False) -> Iterator[dict[str, Any]]:
    """Run the block with TF32 matmuls/convolutions on or off (off unless a task allows it); yield the policy."""
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.get_float32_matmul_precision())
    torch.backends.cuda.matmul.allow_tf32 = allow_tf32
    torch.set_float32_matmul_precision("high" if allow_tf32 else "highest")
    try:
        with _cudnn_tf32(allow_tf32):
            yield {"tf32": allow_tf32, "float32_matmul_precision": torch.get_float32_matmul_precision()}
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved[0]
        torch.set_float32_matmul_precision(saved[1])
