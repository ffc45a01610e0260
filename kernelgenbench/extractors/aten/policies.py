"""Per-task tolerances and cost expressions, from data/aten_tolerances.yaml and data/aten_costs.yaml."""

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
