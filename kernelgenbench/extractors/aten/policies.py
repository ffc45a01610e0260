"""Per-task tolerances, cost expressions and comparison rules, from data/aten_tolerances.yaml, aten_costs.yaml and
aten_compare.yaml."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernelgenbench.extractors.aten.data_files import load, root_name


def tolerance(category: str) -> dict[str, dict[str, float]]:
    """Tolerance per dtype: torch.testing defaults, loosened for accumulating categories."""
    d = load("tolerances")
    tol = {k: dict(v) for k, v in d["default"].items()}
    tol.update({k: dict(v) for k, v in d.get("categories", {}).get(category, {}).items()})
    return tol


def cost(name: str, category: str, params: Sequence[dict[str, Any]]) -> dict[str, str] | None:
    """FLOP and byte expressions over the task's arguments (names are its parameters)."""
    d = load("costs")
    first_tensor = next((p["name"] for p in params if p["kind"] == "tensor" and not p["mutable"]), None)
    for entry in (d.get("names", {}).get(root_name(name)), d.get("categories", {}).get(category), d["default"]):
        if entry is None:
            continue
        text = {k: str(v) for k, v in entry.items()}
        if any("{x}" in v for v in text.values()):
            if first_tensor is None:
                continue
            text = {k: v.replace("{x}", first_tensor) for k, v in text.items()}
        return text
    return None


def _has_target(target: str, by_name: dict[str, dict[str, Any]], n_returns: int) -> bool:
    if target.startswith("return["):
        return int(target[len("return["):-1]) < n_returns
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
