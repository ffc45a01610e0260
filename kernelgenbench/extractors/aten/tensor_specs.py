"""Serialize traced argument values into workload argument specs (shapes, dtypes, value ranges; no pickles)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch


class Unserializable(ValueError):
    """A traced value has no spec form (a generator, a storage, a sparse tensor...)."""


def _dtype_name(dt: torch.dtype) -> str:
    return str(dt).removeprefix("torch.")


def _contiguous_strides(shape: list[int]) -> list[int]:
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return list(reversed(strides))


# Bounds past this are read from memory nobody wrote (an `empty` buffer), not chosen by a sample.
_GARBAGE_BOUND = 1e10
_NORMAL = {"dist": "normal", "mean": 0.0, "std": 1.0}


def _init(t: torch.Tensor) -> dict[str, Any]:
    # The distribution the fresh draws come from keeps what the op relied on: the sign and range of
    # floats (positive for log/sqrt), the bounds of integers (valid indices), the density of masks.
    if t.numel() == 0:
        return dict(_NORMAL)
    if t.dtype == torch.bool:
        return {"dist": "bernoulli", "p": round(float(t.float().mean()), 4)}
    if t.dtype.is_complex:
        return {"dist": "randn_complex", "std": 1.0}
    if not t.dtype.is_floating_point:
        flat = t.reshape(-1).to(torch.int64)
        lo, hi = int(flat.min()), int(flat.max())
        if max(abs(lo), abs(hi)) > _GARBAGE_BOUND:
            return _uninitialized_init(t)
        n = flat.numel()
        if n > 1 and lo == 0 and hi == n - 1 and torch.unique(flat).numel() == n:
            return {"dist": "permutation"}
        return {"dist": "randint", "low": lo, "high": hi + 1}
    v = t.detach().reshape(-1)
    finite = torch.isfinite(v)
    if not bool(finite.all()):
        v = v[finite]
        if v.numel() == 0:
            return {"dist": "constant", "value": "nan"}
    lo, hi = (float(x) for x in torch.aminmax(v))
    if max(abs(lo), abs(hi)) > _GARBAGE_BOUND:
        return dict(_NORMAL)
    if lo == hi:
        # One distinct value (often a 0-dim tensor): draw around it, keeping its sign, never a constant.
        if lo > 0:
            return {"dist": "uniform", "low": lo / 2, "high": lo * 2}
        if lo < 0:
            return {"dist": "uniform", "low": lo * 2, "high": lo / 2}
        return {"dist": "uniform", "low": 0.0, "high": 1.0}
    return {"dist": "uniform", "low": lo, "high": hi}


def tensor_spec(t: torch.Tensor, *, uninitialized: bool = False) -> dict[str, Any]:
    """A tensor spec that draws tensors like `t`: same shape, dtype, strides and value range (a standard
    normal, or small integers, when `t` was never written: its values are whatever memory held)."""
    if t.layout != torch.strided or t.is_quantized or t.is_nested:
        raise Unserializable(f"{t.layout} tensor")
    if t.is_conj() or t.is_neg():
        raise Unserializable("conjugated or negated view")
    shape = list(t.shape)
    init = _init(t) if not uninitialized else _uninitialized_init(t)
    spec: dict[str, Any] = {"kind": "tensor", "shape": shape, "dtype": _dtype_name(t.dtype), "init": init}
    strides = list(t.stride())
    if t.numel() > 1 and strides != _contiguous_strides(shape):
        if any(s < 0 for s in strides):
            raise Unserializable("negative strides")
        spec["strides"] = strides
    if t.storage_offset():
        spec["offset"] = int(t.storage_offset())
    return spec


def _uninitialized_init(t: torch.Tensor) -> dict[str, Any]:
    if t.dtype == torch.bool:
        return {"dist": "bernoulli", "p": 0.5}
    if t.dtype.is_complex:
        return {"dist": "randn_complex", "std": 1.0}
    if t.dtype.is_floating_point:
        return dict(_NORMAL)
    return {"dist": "randint", "low": 0, "high": 10}


def value_spec(v: Any, uninitialized: Callable[[torch.Tensor], bool] = lambda t: False) -> dict[str, Any]:
    """The spec of one traced argument value; `uninitialized(t)` says a tensor was never written."""
    if isinstance(v, torch.Tensor):
        return tensor_spec(v, uninitialized=uninitialized(v))
    if isinstance(v, (list, tuple)) and v and all(x is None or isinstance(x, torch.Tensor) for x in v) \
            and any(isinstance(x, torch.Tensor) for x in v):
        return {"kind": "tensor_list",
                "items": [None if x is None else tensor_spec(x, uninitialized=uninitialized(x)) for x in v]}
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return {"kind": "value", "value": v}
    if isinstance(v, float):
        if math.isfinite(v):
            return {"kind": "float", "value": v}
        return {"kind": "float", "value": "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")}
    if isinstance(v, complex):
        return {"kind": "complex", "real": v.real, "imag": v.imag}
    if isinstance(v, torch.dtype):
        return {"kind": "dtype", "value": _dtype_name(v)}
    if isinstance(v, torch.layout):
        return {"kind": "layout", "value": str(v).removeprefix("torch.")}
    if isinstance(v, torch.memory_format):
        return {"kind": "memory_format", "value": str(v).removeprefix("torch.")}
    if isinstance(v, torch.device):
        return {"kind": "device", "value": None}
    if isinstance(v, (list, tuple)):
        items = [value_spec(x) for x in v]
        if all(i["kind"] == "value" for i in items):
            return {"kind": "value", "value": [i["value"] for i in items]}
        if all(i["kind"] in ("value", "float") and not isinstance(i["value"], str) for i in items):
            return {"kind": "value", "value": [i["value"] for i in items]}
        raise Unserializable(f"list of {sorted({i['kind'] for i in items})}")
    raise Unserializable(type(v).__name__)
