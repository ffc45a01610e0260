"""Give out= tasks the workloads of their functional overload: outputs shaped by running it on meta tensors."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import torch


class ShapeUnknown(ValueError):
    """The functional overload cannot compute its output shapes on the meta device for these inputs."""


def _meta_tensor(spec: Mapping[str, Any]) -> torch.Tensor:
    shape = list(spec["shape"])
    strides = spec.get("strides")
    if strides is None:
        strides, acc = [], 1
        for s in reversed(shape):
            strides.insert(0, acc)
            acc *= max(s, 1)
    dtype = getattr(torch, spec["dtype"])
    extent = int(spec.get("offset", 0)) + 1 + sum((s - 1) * st for s, st in zip(shape, strides, strict=True)) \
        if all(shape) else 0
    base = torch.empty(max(extent, 0), dtype=dtype, device="meta")
    return base.as_strided(shape, strides, int(spec.get("offset", 0)))


def meta_value(spec: Mapping[str, Any]) -> Any:
    """A spec's value on the meta device (tensors carry shape, dtype and strides, no data)."""
    kind = spec["kind"]
    if kind == "tensor":
        return _meta_tensor(spec)
    if kind == "tensor_list":
        return [None if s is None else _meta_tensor(s) for s in spec["items"]]
    if kind == "float":
        v = spec["value"]
        return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[v] if isinstance(v, str) else float(v)
    if kind == "value":
        return spec["value"]
    if kind == "dtype":
        return None if spec["value"] is None else getattr(torch, spec["value"])
    if kind in ("layout", "memory_format"):
        return None if spec["value"] is None else getattr(torch, spec["value"])
    if kind == "device":
        return torch.device("meta")
    if kind == "complex":
        return complex(spec["real"], spec["imag"])
    raise ShapeUnknown(f"unknown argument kind {kind!r}")


def run_on_meta(qualified: str, args: Mapping[str, Any]) -> Any:
    """Call aten::<qualified> on meta versions of the workload's arguments."""
    name, _, overload = qualified.partition(".")
    op = getattr(getattr(torch.ops.aten, name), overload or "default")
    try:
        return op(**{k: meta_value(v) for k, v in args.items()})
    except Exception as exc:  # noqa: BLE001 - any failure means the shape is not computable here
        raise ShapeUnknown(f"{qualified} on meta: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") \
            from None


def out_specs(functional: str, args: Mapping[str, Any], out_params: Sequence[str]) -> dict[str, Any]:
    """Specs for the out= parameters: the functional overload's outputs for the same inputs, in order."""
    result = run_on_meta(functional, args)
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    if len(outs) != len(out_params) or not all(isinstance(o, torch.Tensor) for o in outs):
        raise ShapeUnknown(f"{functional} returns {len(outs)} values for {len(out_params)} out= parameters")
    return {
        name: {"kind": "tensor", "shape": list(o.shape), "dtype": str(o.dtype).removeprefix("torch."),
               "init": {"dist": "normal", "mean": 0.0, "std": 1.0}}
        for name, o in zip(out_params, outs, strict=True)
    }
