"""Workloads built from the per-category defaults and per-op templates of data/aten_workloads.yaml.

Every curated task gets a performance workload at realistic size; a task that no OpInfo sample traces to
gets a correctness workload from the same template at small size.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Mapping, Sequence
from typing import Any

from kernelgenbench.errors import KgbError
from kernelgenbench.extractors.aten.data_files import load

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}


def resolve_dim(expr: int | str, dims: Mapping[str, int]) -> int:
    """A shape entry: an int, a dim name, or +, -, *, // over dims and ints ('L+4', 'M//2')."""
    if isinstance(expr, int):
        return expr

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in dims:
            return int(dims[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        raise KgbError(f"data/aten_workloads.yaml: cannot resolve dim expression {expr!r}")

    return ev(ast.parse(str(expr), mode="eval").body)


def _resolve_value(v: Any, dims: Mapping[str, int]) -> Any:
    if isinstance(v, list):
        return [_resolve_value(x, dims) for x in v]
    if isinstance(v, str):
        try:
            return resolve_dim(v, dims)
        except (KgbError, SyntaxError):
            return v
    return v


def _tensor(t: Mapping[str, Any], dims: Mapping[str, int], dtype: str) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "kind": "tensor",
        "shape": [resolve_dim(s, dims) for s in t.get("shape", [])],
        "dtype": t.get("dtype", dtype),
        "init": dict(t.get("init", {"dist": "normal", "mean": 0.0, "std": 1.0})),
    }
    init = spec["init"]
    for key in ("low", "high"):
        if isinstance(init.get(key), str):
            init[key] = resolve_dim(init[key], dims)
    if "strides" in t:
        spec["strides"] = [resolve_dim(s, dims) for s in t["strides"]]
    return spec


def _from_template(t: Mapping[str, Any], kind: str, dims: Mapping[str, int], dtype: str) -> dict[str, Any] | None:
    """The spec a template gives for a parameter of `kind`, or None when the template's form does not fit."""
    tensor_kinds = ("tensor", "optional_tensor")
    if "shape" in t:
        return _tensor(t, dims, dtype) if kind in tensor_kinds else None
    if "list" in t:
        return {"kind": "tensor_list", "items": [_tensor(x, dims, dtype) for x in t["list"]]} \
            if kind == "tensor_list" else None
    if kind in tensor_kinds or kind == "tensor_list":
        return None
    if "value" in t:
        return {"kind": "value", "value": _resolve_value(t["value"], dims)}
    if "float" in t:
        return {"kind": "float", "value": t["float"]}
    if "dtype" in t:
        return {"kind": "dtype", "value": t["dtype"]} if kind == "scalar_type" else None
    if "device" in t:
        return {"kind": "device", "value": None} if kind == "device" else None
    return None


def _generic(p: Mapping[str, Any], category: str, dims: Mapping[str, int], dtype: str) -> dict[str, Any] | None:
    """The spec of an untemplated parameter; None means 'leave it out' (its default applies)."""
    cat = load("workloads").get("categories", {}).get(category, {})
    shape = [resolve_dim(s, dims) for s in cat.get("shape", load("workloads")["default_shape"])]
    kind = p["kind"]
    if kind == "device":
        # Always given: left to its default (None) a factory op would build on the CPU, not the device under
        # test (the evaluator reads a null device as its own).
        return {"kind": "device", "value": None}
    if p["default"] is not None or kind == "generator":
        return None
    if kind == "tensor":
        return _tensor({"shape": shape}, dims, dtype)
    if kind in ("optional_tensor",) or p["optional"]:
        return {"kind": "value", "value": None}
    if kind == "tensor_list":
        return {"kind": "tensor_list", "items": [_tensor({"shape": shape}, dims, dtype)] * 2}
    if kind == "int":
        return {"kind": "value", "value": int(cat.get("dim", -1)) if p["name"] == "dim" else 1}
    if kind in ("float", "scalar"):
        return {"kind": "float", "value": 0.5}
    if kind == "bool":
        return {"kind": "value", "value": False}
    if kind == "int_list":
        return {"kind": "value", "value": shape}
    if kind == "scalar_type":
        return {"kind": "dtype", "value": dtype}
    raise KgbError(f"no default workload rule for a {kind} parameter {p['name']!r}; add a template")


def template_args(
    name: str, overload: str, category: str, params: Sequence[Mapping[str, Any]], scale: str
) -> dict[str, Any]:
    """Argument specs for every non-out parameter of the task, at `scale` ('performance' or 'correctness')."""
    data = load("workloads")
    dims = data["scales"][scale]
    dtype = data["dtype"]
    ops = data.get("ops", {})
    template = dict(ops.get(name, {}))
    if overload:
        template.update(ops.get(f"{name}.{overload}", {}))
    args: dict[str, Any] = {}
    for p in params:
        if p["direction"] == "out":
            continue
        spec = None
        if p["name"] in template:
            spec = _from_template(template[p["name"]], p["kind"], dims, dtype)
        if spec is None:
            spec = _generic(p, category, dims, dtype)
        if spec is not None:
            args[p["name"]] = spec
    return args


def spec_nbytes(args: Mapping[str, Any]) -> int:
    """Bytes of all tensors the specs draw (for the workload's description)."""
    sizes = {"bool": 1, "int8": 1, "uint8": 1, "float16": 2, "bfloat16": 2, "int16": 2, "int32": 4,
             "float32": 4, "int64": 8, "float64": 8, "complex64": 8, "complex128": 16}
    total = 0
    for spec in args.values():
        items = spec.get("items", [spec]) if spec["kind"] in ("tensor", "tensor_list") else []
        for t in items:
            if t is not None:
                total += math.prod(t["shape"]) * sizes.get(t["dtype"], 4)
    return total


def describe(args: Mapping[str, Any]) -> str:
    """'float32 [4096, 4096], float32 [4096, 4096] (128.0 MiB)'."""
    parts = []
    for spec in args.values():
        if spec["kind"] == "tensor":
            parts.append(f"{spec['dtype']} {spec['shape']}")
        elif spec["kind"] == "tensor_list":
            parts.append("[" + ", ".join(f"{t['dtype']} {t['shape']}" for t in spec["items"] if t) + "]")
    return ", ".join(parts) + f" ({spec_nbytes(args) / 2**20:.1f} MiB)"
