"""Evaluate a record's cost expressions (FLOPs, fewest bytes) for one workload, without `eval`'s powers."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.parsing import parse

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
def _nbytes(x: Any) -> int:
    """Bytes of a tensor argument, of every tensor of a list of them; 0 for None (an absent optional)."""
    if x is None:
        return 0
    if isinstance(x, TensorMeta):
        return x.nbytes
    if isinstance(x, list | tuple):
        return sum(_nbytes(v) for v in x)
    raise TypeError(f"nbytes() of a {type(x).__name__}, not a tensor")


_FUNCS = {"prod": lambda xs: math.prod(xs), "min": min, "max": max, "abs": abs, "log2": math.log2,
          "ceil": math.ceil, "len": len, "nbytes": _nbytes}


@dataclass(frozen=True)
class TensorMeta:
    """What a cost expression may read of a tensor."""

    shape: tuple[int, ...]
    numel: int
    nbytes: int
    dtype_size: int


class CostError(KgbError, ValueError):
    """A cost expression is malformed or uses a name the workload does not have."""


def tensor_meta(t: torch.Tensor) -> TensorMeta:
    """The metadata of a tensor (logical bytes: numel x element size, not the storage)."""
    return TensorMeta(tuple(t.shape), t.numel(), t.numel() * t.element_size(), t.element_size())


def flatten_tensors(x: Any) -> list[torch.Tensor]:
    """Every tensor in a value, a list or a tuple (nested), in order."""
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, list | tuple):
        return [t for v in x for t in flatten_tensors(v)]
    return []


def written_outputs(returned: Any, args: Mapping[str, Any], mutable: set[str]) -> list[torch.Tensor]:
    """What a call produced: its returned tensors, plus each declared-mutable argument it wrote in place
    and did not also return (an in-place BLAS routine returns nothing; `add_` returns `self`)."""
    outs = flatten_tensors(returned)
    seen = {t.untyped_storage().data_ptr() for t in outs if t.numel()}
    for name in mutable:
        for t in flatten_tensors(args.get(name)):
            if not t.numel() or t.untyped_storage().data_ptr() not in seen:
                outs.append(t)
    return outs


def _wrap(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        return tensor_meta(x)
    if isinstance(x, list | tuple):
        return [_wrap(v) for v in x]
    return x


def _eval(node: ast.AST, names: Mapping[str, Any], text: str) -> Any:
    if isinstance(node, ast.Expression):
        return _eval(node.body, names, text)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise CostError(f"cost expression {text!r}: unknown name {node.id!r}")
        return names[node.id]
    if isinstance(node, ast.Attribute) and node.attr in TensorMeta.__dataclass_fields__:
        return getattr(_eval(node.value, names, text), node.attr)
    if isinstance(node, ast.Subscript):
        return _eval(node.value, names, text)[_eval(node.slice, names, text)]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, names, text), _eval(node.right, names, text))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, names, text)
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, names, text) else node.orelse, names, text)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        ops = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.Gt: operator.gt,
               ast.LtE: operator.le, ast.GtE: operator.ge}
        if type(node.ops[0]) in ops:
            return ops[type(node.ops[0])](_eval(node.left, names, text), _eval(node.comparators[0], names, text))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "nbytes" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id not in names:
        return 0  # an optional tensor the workload leaves out takes its default, None: no bytes
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
        return _FUNCS[node.func.id](*[_eval(a, names, text) for a in node.args])
    if isinstance(node, ast.List | ast.Tuple):
        return [_eval(e, names, text) for e in node.elts]
    raise CostError(f"cost expression {text!r}: {ast.dump(node)[:60]} is not allowed")


def evaluate_cost(expr: str, args: Mapping[str, Any], outputs: Any) -> float:
    """Value of one cost expression for the given arguments and outputs (mutated args count as outputs)."""
    ins = [t for v in args.values() for t in flatten_tensors(v)]
    outs = flatten_tensors(outputs)
    names: dict[str, Any] = {k: _wrap(v) for k, v in args.items()}
    names.update(
        in_bytes=sum(t.numel() * t.element_size() for t in ins),
        out_bytes=sum(t.numel() * t.element_size() for t in outs),
        out_numel=sum(t.numel() for t in outs),
    )
    try:
        tree = parse(expr, mode="eval")
    except SyntaxError as exc:
        raise CostError(f"cost expression {expr!r} is not valid Python: {exc.msg}") from None
    try:
        return float(_eval(tree, names, expr))
    except (TypeError, IndexError, KeyError, ZeroDivisionError, AttributeError) as exc:
        raise CostError(f"cost expression {expr!r}: {type(exc).__name__}: {exc}") from None


def workload_cost(cost: Mapping[str, str] | None, args: Mapping[str, Any], outputs: Any) -> dict[str, Any] | None:
    """{'flops', 'bytes', 'unit'} of a workload, with 'reads' and 'writes' where the record splits its bytes;
    None when the record has no cost model."""
    if not cost:
        return None
    out = {
        "flops": evaluate_cost(cost["flops"], args, outputs),
        "bytes": evaluate_cost(cost["bytes"], args, outputs),
        "unit": cost.get("unit", "vector"),
    }
    if "reads" in cost and "writes" in cost:
        out["reads"] = evaluate_cost(cost["reads"], args, outputs)
        out["writes"] = evaluate_cost(cost["writes"], args, outputs)
    return out
