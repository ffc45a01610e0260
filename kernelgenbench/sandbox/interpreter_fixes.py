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

import math
from typing import Any

import numpy as np


def _ufunc(fn: Any) -> Any:
    """A math-module function of one float applied elementwise (no numpy ufunc exists for it)."""
    vectorized = np.frompyfunc(fn, 1, 1)
    return lambda a: vectorized(a).astype(a.dtype)


def _ieee_remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a - b * np.rint(a / b)


_UNARY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "cbrt": np.cbrt, "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh,
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda a: np.power(a.dtype.type(10), a), "expm1": np.expm1,
    "floor": np.floor, "log": np.log, "log10": np.log10, "log1p": np.log1p, "log2": np.log2, "nearbyint": np.rint,
    "rint": np.rint, "round": lambda a: np.copysign(np.floor(np.abs(a) + a.dtype.type(0.5)), a),
    "rsqrt": lambda a: a.dtype.type(1) / np.sqrt(a), "rcbrt": lambda a: a.dtype.type(1) / np.cbrt(a),
    "sin": np.sin, "sinh": np.sinh, "sqrt": np.sqrt, "tan": np.tan, "tanh": np.tanh, "trunc": np.trunc,
    "erf": _ufunc(math.erf), "erfc": _ufunc(math.erfc), "lgamma": _ufunc(math.lgamma), "tgamma": _ufunc(math.gamma),
    "sinpi": lambda a: np.sin(a * a.dtype.type(math.pi)), "cospi": lambda a: np.cos(a * a.dtype.type(math.pi)),
    "saturatef": lambda a: np.clip(a, a.dtype.type(0), a.dtype.type(1)), "rcp_rn": lambda a: a.dtype.type(1) / a,
    "logb": lambda a: np.floor(np.log2(np.abs(a))),
}
_UNARY["normcdf"] = lambda a: a.dtype.type(0.5) * _UNARY["erfc"](-a / a.dtype.type(math.sqrt(2.0)))
_UNARY.update({"rsqrt_rn": _UNARY["rsqrt"], "sqrt_rn": np.sqrt, "fast_expf": np.exp, "fast_logf": np.log,
               "fast_log2f": np.log2, "fast_log10f": np.log10, "fast_sinf": np.sin, "fast_cosf": np.cos,
               "fast_tanf": np.tan, "fast_tanhf": np.tanh, "fast_exp10f": _UNARY["exp10"]})
_BINARY = {"atan2": np.arctan2, "copysign": np.copysign, "fmod": np.fmod, "hypot": np.hypot, "pow": np.power,
           "fast_powf": np.power, "div_rn": np.divide, "fast_dividef": np.divide, "nextafter": np.nextafter,
           "fdim": lambda a, b: np.maximum(a - b, a.dtype.type(0)), "remainder": _ieee_remainder,
           "add_rn": np.add, "sub_rn": np.subtract, "mul_rn": np.multiply, "fmin": np.fmin, "fmax": np.fmax}
_TERNARY = {"fma": lambda a, b, c: a * b + c, "fma_rn": lambda a, b, c: a * b + c}
# Predicates: an int32 per element on a device (libdevice's isnan, isinf, signbit, finitef).
_TESTS = {"isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit, "finitef": np.isfinite,
          "isfinited": np.isfinite}
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


def _elementwise(fn: Any, test: bool = False) -> Any:
    """A libdevice function for the interpreter: its arguments made tensors, broadcast and promoted as an extern
    call's are, then numpy on their data (bf16 through fp32); a predicate (`test`) gives int32."""

    def interpreted(*args: Any, **kwargs: Any) -> Any:
        import triton.language as tl
        from triton.runtime.interpreter import TensorHandle, interpreter_semantic

        sem = interpreter_semantic
        ts = [a if isinstance(a, tl.tensor) else sem.to_tensor(a) for a in args]
        for i in range(1, len(ts)):  # promote and broadcast every argument against the first, then back
            ts[0], ts[i] = sem.binary_op_type_checking_impl(ts[0], ts[i])
        for i in range(1, len(ts)):
            ts[0], ts[i] = sem.binary_op_type_checking_impl(ts[0], ts[i])
        kind = ts[0].dtype.scalar
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*(_as_float(t.handle) for t in ts)))
        shape = ts[0].type.shape if ts[0].type.is_block() else []
        ret = tl.int32 if test else kind
        data = out.astype(np.int32) if test else _from_float(out, kind)
        ty = tl.block_type(ret, shape) if shape else ret
        return tl.tensor(TensorHandle(np.ascontiguousarray(np.broadcast_to(data, ts[0].handle.data.shape)), ret), ty)

    return interpreted


def _as_float(handle: Any) -> np.ndarray:
    """A tensor handle's data as numbers: bf16 (stored as its bits) widened to fp32."""
    import triton.language as tl

    if handle.dtype.scalar == tl.bfloat16:
        return (handle.data.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return handle.data


def _from_float(out: np.ndarray, kind: Any) -> np.ndarray:
    """Numbers back in `kind`'s storage: bf16 rounded to nearest even, as the devices round."""
    import triton.language as tl
    from triton.runtime.interpreter import _get_np_dtype

    if kind == tl.bfloat16:
        return rne_bfloat16(out.astype(np.float32))
    return out.astype(_get_np_dtype(kind))


def libdevice_on_the_interpreter() -> list[str]:
    """Give both libdevice modules' common float functions numpy bodies; the modules patched, by name."""
    import importlib

    patched = []
    for modname in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        for table, test in ((_UNARY, False), (_BINARY, False), (_TERNARY, False), (_TESTS, True)):
            for name, fn in table.items():
                if hasattr(mod, name):
                    setattr(mod, name, _elementwise(fn, test))
                    _PATCHED.append(getattr(mod, name))
        patched.append(modname)
    return patched


def is_patched(value: Any) -> bool:
    """`value` is one of the libdevice functions given a numpy body here."""
    return any(value is f for f in _PATCHED)
