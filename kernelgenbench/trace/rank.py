"""Operators by frequency in the trace, and where the curated ATen operators fall."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any


def base_name(overload: str) -> str:
    """'add_.Tensor' -> 'add_'; 'mm' -> 'mm'."""
    return overload.split(".", 1)[0]


def ranking(data: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """(operator name, calls over all its overloads, models) by calls, most first (ties by name)."""
    calls: dict[str, int] = defaultdict(int)
    models: dict[str, set[str]] = defaultdict(set)
    for op, entry in data["ops"].items():
        calls[base_name(op)] += entry["calls"]
        models[base_name(op)].update(entry["models"])
    return sorted(((n, c, len(models[n])) for n, c in calls.items()), key=lambda r: (-r[1], r[0]))


def curated_coverage(data: Mapping[str, Any], curated: Iterable[str]) -> tuple[dict[str, int], list[str]]:
    """({curated name: rank (1 = most called)}, [curated names the trace never calls])."""
    ranks = {name: i + 1 for i, (name, _, _) in enumerate(ranking(data))}
    names = list(dict.fromkeys(curated))
    return {n: ranks[n] for n in names if n in ranks}, [n for n in names if n not in ranks]


def render(data: Mapping[str, Any], curated: Iterable[str], top: int | None = None) -> str:
    """The ranking as text: rank, calls, models, name, '*' on curated names; then the curated summary."""
    cur = list(curated)
    found, missing = curated_coverage(data, cur)
    rows = ranking(data)
    lines = [f"{'rank':>4} {'calls':>8} {'models':>6}  operator   (* = curated)"]
    for i, (name, calls, nmodels) in enumerate(rows[:top] if top else rows):
        lines.append(f"{i + 1:>4} {calls:>8} {nmodels:>6}  {name}{' *' if name in found else ''}")
    lines.append("")
    lines.append(f"{len(data['models'])} architectures, {len(rows)} operators; curated in the trace: "
                 f"{len(found)} of {len(set(cur))}")
    if missing:
        lines.append("curated, never called: " + ", ".join(sorted(missing)))
    return "\n".join(lines)
