"""Triton's interpreter made to round as the devices do, so a verdict on CPU is the verdict on a GPU.

The interpreter (triton 3.9) casts float32 to bfloat16 by truncating the mantissa, where every backend rounds
to nearest even: a kernel that rounds to bf16 more than once (vLLM's fused_add_rms_norm rounds the residual,
the normalised value and the product) drifts by up to one ulp per rounding, and a correct kernel failed its
tolerance on about a third of the random draws. The worker replaces that one cast before the candidate is
imported; it changes nothing else the interpreter does and nothing on a device.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def rne_bfloat16(data: np.ndarray) -> np.ndarray:
    """float32 values as bfloat16 bit patterns (uint16), rounded to nearest even; NaN stays NaN."""
    x = np.ascontiguousarray(data, dtype=np.float32)
    u = x.view(np.uint32)
    rounded = ((u + (np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1)))) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        rounded = np.where(nan, ((u >> 16) | np.uint32(0x0040)).astype(np.uint16), rounded)
    return rounded


def apply() -> bool:
    """Patch the interpreter's float32 -> bfloat16 cast (True when it was patched, False when absent)."""
    try:
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    builder = getattr(interpreter, "InterpreterBuilder", None)
    handle = getattr(interpreter, "TensorHandle", None)
    if builder is None or handle is None or getattr(builder.cast_impl, "__kgb_rne__", False):
        return False
    original = builder.cast_impl

    def cast_impl(self: Any, src: Any, dst_type: Any) -> Any:
        if src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            return handle(rne_bfloat16(src.data), dst_type.scalar)
        return original(self, src, dst_type)

    cast_impl.__kgb_rne__ = True  # type: ignore[attr-defined]
    builder.cast_impl = cast_impl
    return True
