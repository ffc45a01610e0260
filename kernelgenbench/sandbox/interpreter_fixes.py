"""Triton's interpreter made to round as the devices do, so a verdict on CPU is the verdict on a GPU.

The interpreter (triton 3.9) casts float32 to bfloat16 by truncating the mantissa, where every backend rounds
to nearest even: a kernel that rounds to bf16 more than once (vLLM's fused_add_rms_norm rounds the residual,
the normalised value and the product) drifts by up to one ulp per rounding, and a correct kernel failed its
tolerance on about a third of the random draws. The worker replaces that one cast before the candidate is
imported.

The interpreter also has no libdevice: `libdevice.rsqrt(x)` (Liger-Kernel's RMSNorm, its GELU's `tanh`) returns
None there, or raises for the CUDA module, so a correct kernel failed on CPU only. The common float functions of
both libdevice modules are given numpy bodies (`libdevice_on_the_interpreter`). And a Python float handed to a
kernel stays a Python float there, where a device passes an fp32 scalar: Liger-Kernel's `eps.to(tl.float32)`
raised (`float_arguments_as_fp32`).

None changes anything on a device: the worker applies them (`interpreter_as_a_device`) for the interpreter only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_UNARY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "cbrt": np.cbrt, "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh,
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda a: np.power(a.dtype.type(10), a), "expm1": np.expm1,
    "floor": np.floor, "log": np.log, "log10": np.log10, "log1p": np.log1p, "log2": np.log2, "nearbyint": np.rint,
    "rint": np.rint, "round": lambda a: np.copysign(np.floor(np.abs(a) + a.dtype.type(0.5)), a),
    "rsqrt": lambda a: a.dtype.type(1) / np.sqrt(a), "rcbrt": lambda a: a.dtype.type(1) / np.cbrt(a),
    "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc,
}
_UNARY.update({"rsqrt_rn": _UNARY["rsqrt"], "sqrt_rn": np.sqrt, "fast_expf": np.exp, "fast_logf": np.log,
               "fast_log2f": np.log2, "fast_log10f": np.log10, "fast_sinf": np.sin, "fast_cosf": np.cos,
               "fast_tanf": np.tan, "fast_tanhf": np.tanh, "fast_exp10f": _UNARY["exp10"]})
_BINARY = {"atan2": np.arctan2, "copysign": np.copysign, "fmod": np.fmod, "hypot": np.hypot, "pow": np.power,
           "fast_powf": np.power, "div_rn": np.divide, "fast_dividef": np.divide, "nextafter": np.nextafter,
           "fdim": lambda a, b: np.maximum(a - b, a.dtype.type(0))}
_TERNARY = {"fma": lambda a, b, c: a * b + c}
# The functions put into the libdevice modules, by identity: a kernel may name these (sandbox/kernel_rules.py).
# Filled once before the candidate is imported; the tamper watch holds this module's data to what it was then.
_PATCHED: list[Any] = []


def rne_bfloat16(data: np.ndarray) -> np.ndarray:
    """float32 values as bfloat16 bit patterns (uint16), rounded to nearest even; NaN stays NaN."""
    x = np.ascontiguousarray(data, dtype=np.float32)
    u = x.view(np.uint32)
    rounded = ((u + (np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1)))) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    if nan.any():
        rounded = np.where(nan, ((u >> 16) | np.uint32(0x0040)).astype(np.uint16), rounded)
    return rounded


def interpreter_as_a_device() -> None:
    """Every fix above, before the candidate is imported (worker, interpreter only)."""
    apply()
    libdevice_on_the_interpreter()
    float_arguments_as_fp32()


def float_arguments_as_fp32() -> bool:
    """A float kernel argument becomes an fp32 scalar tensor, as a device's launcher types it (True when patched)."""
    try:
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    original = getattr(interpreter, "_implicit_cvt", None)
    if original is None or getattr(original, "__kgb_fp32__", False):
        return False

    def implicit_cvt(arg: Any) -> Any:
        if type(arg) is float:
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return original(arg)

    implicit_cvt.__kgb_fp32__ = True  # type: ignore[attr-defined]
    interpreter._implicit_cvt = implicit_cvt
    return True


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


def _elementwise(fn: Any) -> Any:
    """A libdevice function for the interpreter: numpy on the arguments' data, in the first tensor's dtype."""

    def interpreted(*args: Any, **kwargs: Any) -> Any:
        import triton.language as tl
        from triton.runtime.interpreter import TensorHandle

        tensors = [a for a in args if isinstance(a, tl.tensor)]
        if not tensors:
            raise TypeError("a libdevice function needs a tensor argument under the interpreter")
        widest = max(tensors, key=lambda t: t.handle.data.size)
        kind = tensors[0].handle.data.dtype
        data = [a.handle.data.astype(kind, copy=False) if isinstance(a, tl.tensor) else kind.type(a) for a in args]
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*data), dtype=kind)
        return tl.tensor(TensorHandle(np.broadcast_to(out, widest.handle.data.shape).copy(), tensors[0].handle.dtype),
                         widest.type if widest.type.is_block() else tensors[0].type)

    return interpreted


def libdevice_on_the_interpreter() -> list[str]:
    """Give both libdevice modules' common float functions numpy bodies; the modules patched, by name."""
    import importlib

    patched = []
    for modname in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        for table in (_UNARY, _BINARY, _TERNARY):
            for name, fn in table.items():
                if hasattr(mod, name):
                    setattr(mod, name, _elementwise(fn))
                    _PATCHED.append(getattr(mod, name))
        patched.append(modname)
    return patched


def is_patched(value: Any) -> bool:
    """`value` is one of the libdevice functions given a numpy body here."""
    return any(value is f for f in _PATCHED)
