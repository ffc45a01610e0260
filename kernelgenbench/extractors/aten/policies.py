"""Per-task tolerances, cost expressions and comparison rules, from data/aten_tolerances.yaml, aten_costs.yaml and
aten_compare.yaml."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernelgenbench.dataset.schema import return_index
from kernelgenbench.extractors.aten.data_files import load, root_name


def tolerance(category: str) -> dict[str, dict[str, float]]:
    """Tolerance per dtype: torch.testing defaults, loosened for accumulating categories."""
    d = load("tolerances")
    tol = {k: dict(v) for k, v in d["default"].items()}
    tol.update({k: dict(v) for k, v in d.get("categories", {}).get(category, {}).items()})
    return tol


# What a task's cost entry may set; `bytes` is derived as reads + writes.
_COST_KEYS = ("flops", "unit", "reads", "writes")
_TENSOR_KINDS = ("tensor", "optional_tensor", "tensor_list")


def param_access(params: Sequence[dict[str, Any]], overrides: dict[str, str]) -> dict[str, str]:
    """Per tensor parameter: 'read', 'write', 'readwrite' or 'none' -- from the op's semantics where
    data/aten_costs.yaml names them (copy_'s destination is written, not read), else from the schema:
    an input is read, an out= argument written, a mutated argument both."""
    by_direction = {"in": "read", "out": "write", "inout": "readwrite"}
    return {p["name"]: overrides.get(p["name"], by_direction.get(p.get("direction", "in"), "read"))
            for p in params if p["kind"] in _TENSOR_KINDS}


def reads_expr(access: dict[str, str]) -> str:
    """The bytes the op must read: every tensor argument it reads, once (None and lists handled by nbytes)."""
    read = [f"nbytes({name})" for name, mode in access.items() if mode in ("read", "readwrite")]
    return " + ".join(read) or "0"


def cost(name: str, category: str, params: Sequence[dict[str, Any]], overload: str = "") -> dict[str, str] | None:
    """FLOP, read, write and total byte expressions over the task's arguments (names are its parameters).

    Each key comes from the first of: the entry for the overload ('bernoulli.default'), for the op's root
    name, its category's, the default;
    an entry whose expression needs `{x}` is passed over for a task without a tensor parameter.
    Writes default to every tensor the call produces or mutates (`out_bytes`), each once.
    """
    d = load("costs")
    first_tensor = next((p["name"] for p in params if p["kind"] == "tensor" and not p["mutable"]), None)
    names = d.get("names", {})
    root = root_name(name)
    layers = [e for e in (names.get(f"{root}.{overload or 'default'}"), names.get(root),
                          d.get("categories", {}).get(category), d["default"]) if e is not None]
    out: dict[str, str] = {}
    access: dict[str, str] = {}
    for entry in layers:
        for k, v in entry.items():
            if k == "access":
                access = {**dict(v), **access}
                continue
            if k in out or k not in _COST_KEYS:
                continue
            text = str(v)
            if "{x}" in text:
                if first_tensor is None:
                    continue
                text = text.replace("{x}", first_tensor)
            out[k] = text
    out.setdefault("unit", "vector")
    out.setdefault("writes", "out_bytes")
    out["reads"] = out.get("reads", "{reads}").replace("{reads}", reads_expr(param_access(params, access)))
    out["bytes"] = f"{out['reads']} + {out['writes']}"
    return out


def _has_target(target: str, by_name: dict[str, dict[str, Any]], n_returns: int) -> bool:
    index = return_index(target)
    if index is not None:
        return index < n_returns
    return bool(by_name.get(target, {}).get("mutable"))


def compare_rules(name: str, params: Sequence[dict[str, Any]], n_returns: int) -> list[dict[str, Any]]:
    """The record's `compare` rules for one overload: the op's rules of aten_compare.yaml that fit it."""
    by_name = {p["name"]: p for p in params}
    rules: list[dict[str, Any]] = []
    for spec in load("compare").get("ops", {}).get(root_name(name), ()):
        if any(n not in by_name for n in spec.get("needs", ())) or any(n in by_name for n in spec.get("not_with", ())):
            continue
        dim, source = spec.get("dim"), spec.get("source")
        if isinstance(dim, str) and by_name.get(dim, {}).get("kind") != "int":
            continue  # a Dimname overload: the rule's dim is not an index
        if source is not None and by_name.get(source, {}).get("kind") != "tensor":
            continue
        for target in spec["targets"]:
            if not _has_target(target, by_name, n_returns):
                continue
            rule = {k: v for k, v in spec.items() if k not in ("targets", "needs", "not_with")} | {"target": target}
            if rule.get("unless") and rule["unless"] not in by_name:
                del rule["unless"]
            rules.append(rule)
    return rules
