"""Evaluate Python expressions of a test module statically (no import, no execution of upstream code).

Module-level constants, literals, lists, tuples, ranges, comprehensions, arithmetic, f-strings and a few
pure builtins are evaluated; anything else (a call into torch.cuda, a platform query) is `Unevaluable`
with the reason. torch dtypes evaluate to their names ('float16'), as the record's workloads spell them.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst.helpers import get_full_name_for_node


class Unevaluable(Exception):
    """An expression that cannot be evaluated statically; the message says why."""


@dataclass(frozen=True)
class Unknown:
    """A module-level name whose value could not be evaluated (kept so that uses can say why)."""

    reason: str


@dataclass(frozen=True)
class DType:
    """A torch dtype met in a test module, by its canonical name."""

    name: str


@functools.cache
def _dtype_names() -> dict[str, str]:
    import torch  # imported late: importing this module stays free of torch

    return {a: str(v).removeprefix("torch.") for a in dir(torch) if isinstance(v := getattr(torch, a), torch.dtype)}


def torch_dtype_name(attr: str) -> str | None:
    """'half' -> 'float16'; None when torch has no dtype of that name."""
    return _dtype_names().get(attr)


_BIN = {
    cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul, cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod, cst.Power: operator.pow,
    cst.LeftShift: operator.lshift, cst.RightShift: operator.rshift, cst.BitOr: operator.or_,
    cst.BitAnd: operator.and_, cst.BitXor: operator.xor,
}
_CMP = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt, cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge, cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b, cst.Is: operator.is_, cst.IsNot: operator.is_not,
}
_BUILTINS: dict[str, Callable[..., Any]] = {
    "range": lambda *a: list(range(*a)), "list": list, "tuple": tuple, "len": len, "sum": sum, "min": min,
    "max": max, "sorted": sorted, "zip": lambda *a: list(zip(*a, strict=False)),
    "enumerate": lambda *a: list(enumerate(*a)), "int": int, "float": float, "str": str, "bool": bool,
    "abs": abs, "reversed": lambda a: list(reversed(a)), "set": set, "dict": dict, "round": round,
    "itertools.product": lambda *a, **k: list(itertools.product(*a, **k)),
    "product": lambda *a, **k: list(itertools.product(*a, **k)),
    "math.prod": math.prod, "math.ceil": math.ceil, "math.floor": math.floor, "math.log2": math.log2,
    "math.sqrt": math.sqrt,
}
_MAX_LEN = 100_000


_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
             cst.List, cst.Tuple, cst.Set, cst.Dict)
_OPERATIONS = (cst.UnaryOperation, cst.BinaryOperation, cst.BooleanOperation, cst.Comparison)


class Evaluator:
    """Evaluates expressions against module-level names; `env` values may be Unknown."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        self.env = dict(env)

    def eval(self, node: cst.BaseExpression, local: Mapping[str, Any] | None = None) -> Any:
        """The value of an expression node, or raise Unevaluable."""
        local = local or {}
        ev = lambda n: self.eval(n, local)  # noqa: E731
        if isinstance(node, _LITERALS):
            return self._literal(node, ev)
        if isinstance(node, _OPERATIONS):
            return self._operation(node, ev)
        if isinstance(node, cst.Name):
            return self._name(node.value, local)
        if isinstance(node, cst.Attribute):
            full = get_full_name_for_node(node) or ""
            if full.startswith("torch.") and full.count(".") == 1:
                name = torch_dtype_name(node.attr.value)
                if name is not None:
                    return DType(name)
            if full in ("math.pi", "math.e", "math.inf"):
                return getattr(math, node.attr.value)
            raise Unevaluable(f"`{full}` is not a constant")
        if isinstance(node, cst.IfExp):
            return ev(node.body) if ev(node.test) else ev(node.orelse)
        if isinstance(node, cst.Subscript):
            value = ev(node.value)
            if len(node.slice) != 1:
                raise Unevaluable("multi-dimensional subscript")
            sl = node.slice[0].slice
            if isinstance(sl, cst.Index):
                return value[ev(sl.value)]
            if isinstance(sl, cst.Slice):
                part = lambda x: None if x is None else ev(x)  # noqa: E731
                return value[slice(part(sl.lower), part(sl.upper), part(sl.step))]
            raise Unevaluable("unsupported subscript")
        if isinstance(node, cst.ListComp | cst.GeneratorExp | cst.SetComp):
            return self._comp(node.elt, node.for_in, local)
        if isinstance(node, cst.DictComp):
            pairs = self._comp(cst.Tuple([cst.Element(node.key), cst.Element(node.value)]), node.for_in, local)
            return dict(pairs)
        if isinstance(node, cst.Call):
            return self._call(node, local)
        raise Unevaluable(f"{type(node).__name__} expression")

    def _literal(self, node: cst.BaseExpression, ev: Callable[[cst.BaseExpression], Any]) -> Any:
        """A number, string, f-string, list, tuple, set or dict display."""
        if isinstance(node, cst.Integer | cst.Float | cst.Imaginary):
            return node.evaluated_value
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value
        if isinstance(node, cst.ConcatenatedString):
            return ev(node.left) + ev(node.right)
        if isinstance(node, cst.FormattedString):
            out = []
            for part in node.parts:
                if isinstance(part, cst.FormattedStringText):
                    out.append(part.value)
                else:
                    if part.format_spec or part.conversion:
                        raise Unevaluable("f-string with a format spec")
                    out.append(str(ev(part.expression)))
            return "".join(out)
        if isinstance(node, cst.List | cst.Tuple | cst.Set):
            items: list[Any] = []
            for el in node.elements:
                if isinstance(el, cst.StarredElement):
                    items.extend(ev(el.value))
                else:
                    items.append(ev(el.value))
            return tuple(items) if isinstance(node, cst.Tuple) else items
        if isinstance(node, cst.Dict):
            out_d: dict[Any, Any] = {}
            for el in node.elements:
                if isinstance(el, cst.StarredDictElement):
                    out_d.update(ev(el.value))
                else:
                    out_d[ev(el.key)] = ev(el.value)
            return out_d
        raise Unevaluable(f"{type(node).__name__} expression")

    def _operation(self, node: cst.BaseExpression, ev: Callable[[cst.BaseExpression], Any]) -> Any:
        """A unary, binary, boolean or comparison operation."""
        if isinstance(node, cst.UnaryOperation):
            v = ev(node.expression)
            if isinstance(node.operator, cst.Minus):
                return -v
            if isinstance(node.operator, cst.Plus):
                return +v
            if isinstance(node.operator, cst.Not):
                return not v
            return ~v
        if isinstance(node, cst.BinaryOperation):
            fn = _BIN.get(type(node.operator))
            if fn is None:
                raise Unevaluable("unsupported operator")
            return self._checked(fn(ev(node.left), ev(node.right)))
        if isinstance(node, cst.BooleanOperation):
            left = ev(node.left)
            if isinstance(node.operator, cst.And):
                return ev(node.right) if left else left
            return left if left else ev(node.right)
        if isinstance(node, cst.Comparison):
            left = ev(node.left)
            for target in node.comparisons:
                right = ev(target.comparator)
                if not _CMP[type(target.operator)](left, right):
                    return False
                left = right
            return True
        raise Unevaluable(f"{type(node).__name__} expression")

    def _name(self, name: str, local: Mapping[str, Any]) -> Any:
        if name in local:
            return local[name]
        if name in self.env:
            v = self.env[name]
            if isinstance(v, Unknown):
                raise Unevaluable(f"`{name}`: {v.reason}")
            return v
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        raise Unevaluable(f"`{name}` is not a module-level constant")

    def _checked(self, v: Any) -> Any:
        if isinstance(v, list | tuple | str) and len(v) > _MAX_LEN:
            raise Unevaluable("value too large")
        return v

    def _comp(self, elt: cst.BaseExpression, for_in: cst.CompFor, local: Mapping[str, Any]) -> list[Any]:
        results: list[Any] = []

        def run(f: cst.CompFor | None, scope: dict[str, Any]) -> None:
            if f is None:
                results.append(self.eval(elt, scope))
                if len(results) > _MAX_LEN:
                    raise Unevaluable("comprehension too large")
                return
            for item in self.eval(f.iter, scope):
                inner = dict(scope)
                self._bind(f.target, item, inner)
                if all(self.eval(cond.test, inner) for cond in f.ifs):
                    run(f.inner_for_in, inner)

        run(for_in, dict(local))
        return results

    def _bind(self, target: cst.BaseExpression, value: Any, scope: dict[str, Any]) -> None:
        if isinstance(target, cst.Name):
            scope[target.value] = value
        elif isinstance(target, cst.Tuple | cst.List):
            values = list(value)
            if len(values) != len(target.elements):
                raise Unevaluable("unpacking mismatch")
            for el, v in zip(target.elements, values, strict=True):
                self._bind(el.value, v, scope)
        else:
            raise Unevaluable("unsupported comprehension target")

    def _call(self, node: cst.Call, local: Mapping[str, Any]) -> Any:
        name = get_full_name_for_node(node.func) or ""
        if name in ("pytest.param",):
            values = [self.eval(a.value, local) for a in node.args if a.keyword is None]
            return values[0] if len(values) == 1 else tuple(values)
        fn = _BUILTINS.get(name)
        if fn is None:
            raise Unevaluable(f"call of `{name or 'an expression'}`")
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for a in node.args:
            if a.keyword is not None:
                kwargs[a.keyword.value] = self.eval(a.value, local)
            elif a.star == "*":
                args.extend(self.eval(a.value, local))
            elif a.star:
                raise Unevaluable("** in a call")
            else:
                args.append(self.eval(a.value, local))
        try:
            return self._checked(fn(*args, **kwargs))
        except Unevaluable:
            raise
        except Exception as exc:  # a builtin rejecting its static arguments: the expression has no value
            raise Unevaluable(f"`{name}` failed: {exc}") from None


def module_env(module: cst.Module, imported: Callable[[str, str], Any] | None = None) -> dict[str, Any]:
    """Module-level names bound by simple assignments (in order) and by `from X import Y` via `imported`."""
    env: dict[str, Any] = {}
    ev = Evaluator(env)
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and imported is not None and not isinstance(small.names, cst.ImportStar):
                mod = get_full_name_for_node(small.module) if small.module else None
                if mod is None or small.relative:
                    continue
                for alias in small.names:
                    local_name = alias.asname.name.value if alias.asname else alias.name.value
                    if isinstance(local_name, str):
                        ev.env[local_name] = imported(mod, get_full_name_for_node(alias.name) or "")
            elif isinstance(small, cst.Assign | cst.AnnAssign):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if small.value is None:
                    continue
                try:
                    value: Any = ev.eval(small.value)
                except (Unevaluable, ArithmeticError, TypeError, ValueError, IndexError, KeyError) as exc:
                    value = Unknown(str(exc) if isinstance(exc, Unevaluable) else f"{type(exc).__name__}: {exc}")
                for t in targets:
                    if isinstance(t, cst.Name):
                        ev.env[t.value] = value
                    elif isinstance(t, cst.Tuple | cst.List) and not isinstance(value, Unknown):
                        try:
                            ev._bind(t, value, ev.env)
                        except Unevaluable:
                            pass
    return ev.env
