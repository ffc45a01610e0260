"""Workloads of a curated op: correctness cases from the vLLM test grid at the revision, performance cases
from the entry.

Correctness: the cartesian product of the mapped grid axes, merged with `fixed`, subsampled
deterministically to at most 8 points, smallest first, while making sure every value of each non-size
parameter (dtypes, flags) appears once where it can. When the test or its mapped parameters are not at
the revision (or cannot be evaluated), the entry's own `correctness` cases (taken from v0.13.0) stand in.
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kernelgenbench.extractors.vllm.curated import CuratedEntry
from kernelgenbench.extractors.vllm.test_grids import TestScan

MAX_CORRECTNESS = 8
REFERENCE_VERSION = "0.13.0"  # the vLLM release the curated references implement
_MAX_POINTS = 200_000
_COVER_SIZE = float(1 << 22)  # a size value is covered only by cases up to ~4M elements


class GridSource(enum.Enum):
    """Where the correctness cases came from."""

    TEST_GRID = "test_grid"
    FALLBACK = "fallback"
    NONE = "none"


@dataclass(frozen=True)
class WorkloadPlan:
    """The workloads of one op and where they came from (reason says why a fallback was taken)."""

    workloads: tuple[dict[str, Any], ...]
    source: GridSource
    reason: str


def _size(point: Mapping[str, Any]) -> float:
    """How big a case is: the product of its positive integer values (lists multiply their items)."""
    total = 1.0
    for v in point.values():
        for x in v if isinstance(v, list) else [v]:
            if isinstance(x, int) and not isinstance(x, bool) and x > 0:
                total *= x
    return total


def _label(v: Any) -> bool:
    return v is None or isinstance(v, bool | str)


def subsample(points: Sequence[Mapping[str, Any]], limit: int = MAX_CORRECTNESS) -> list[dict[str, Any]]:
    """At most `limit` points, smallest first: first covering each value of every non-size parameter
    (dtypes, flags), then each size value (with the smallest partners, up to _COVER_SIZE), then the rest."""
    order = sorted(range(len(points)), key=lambda i: (_size(points[i]), i))
    chosen: list[int] = []
    covered: set[tuple[str, str]] = set()

    def cover(select: Callable[[Any], bool], max_size: float) -> None:
        for i in order:
            if len(chosen) >= limit or _size(points[i]) > max_size:
                break
            new = {(k, repr(v)) for k, v in points[i].items() if select(v)} - covered
            if new and i not in chosen:
                chosen.append(i)
                covered.update((k, repr(v)) for k, v in points[i].items())

    cover(_label, math.inf)
    cover(lambda v: not _label(v), _COVER_SIZE)
    for i in order:
        if len(chosen) >= limit:
            break
        if i not in chosen:
            chosen.append(i)
    chosen.sort(key=lambda i: (_size(points[i]), i))
    return [dict(points[i]) for i in chosen]


def _describe(point: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in point.items())


def _grid_points(entry: CuratedEntry, scan: TestScan, at_reference: bool) -> tuple[list[dict[str, Any]] | None, str]:
    if not entry.test:
        return None, "the entry names no vLLM test"
    grid = scan.by_key.get(entry.test)
    if grid is None:
        return None, f"test {entry.test} is not at this revision"
    axes = []
    for test_name in entry.grid_map:
        axis = grid.axis_for(test_name)
        if axis is None:
            return None, f"test {entry.test} has no parameter {test_name!r} at this revision"
        if axis.values is None:
            return None, f"parameter {test_name!r} of {entry.test} cannot be evaluated statically: {axis.reason}"
        if axis not in axes:
            axes.append(axis)
    if not axes:
        return None, f"no grid_map parameter of {entry.test} to take"
    if math.prod(len(a.values or ()) for a in axes) > _MAX_POINTS:
        return None, f"the grid of {entry.test} has too many points"
    known = {} if at_reference else known_modes(entry)
    points: list[dict[str, Any]] = []
    seen: set[str] = set()
    dropped: set[str] = set()
    for combo in itertools.product(*(a.values or () for a in axes)):
        point: dict[str, Any] = dict(entry.fixed)
        for axis, case in zip(axes, combo, strict=True):
            for name, value in zip(axis.names, case, strict=True):
                if name in entry.grid_map:
                    point[entry.grid_map[name]] = value
        new = {f"{k}={v}" for k, v in point.items() if isinstance(v, str) and k in known and v not in known[k]}
        if new:
            dropped |= new
            continue
        key = repr(sorted(point.items()))
        if key not in seen:
            seen.add(key)
            points.append(point)
    note = f"grid values the entry's cases never use were left out: {', '.join(sorted(dropped))}" if dropped else ""
    if not points:
        return None, note or f"the grid of {entry.test} is empty"
    return points, note


def known_modes(entry: CuratedEntry) -> dict[str, set[str]]:
    """String values (dtypes, cache formats, layouts) of each parameter in the entry's own cases.

    At a revision other than the reference's (v0.13.0), a string value the test grid has but no case of
    the entry uses ('nvfp4' as a new kv_cache_dtype at 0.33.0) is a mode the reference was not written
    for: such grid points are left out, and the record says which.
    """
    known: dict[str, set[str]] = {}
    for case in (*entry.correctness, *entry.performance, entry.fixed):
        for k, v in case.items():
            if isinstance(v, str):
                known.setdefault(k, set()).add(v)
    return known


def plan_workloads(entry: CuratedEntry, scan: TestScan, *, version: str = REFERENCE_VERSION) -> WorkloadPlan:
    """Correctness and performance workloads for a curated op at the scanned revision (vLLM `version`)."""
    points, reason = _grid_points(entry, scan, at_reference=version == REFERENCE_VERSION)
    workloads: list[dict[str, Any]] = []
    if points is not None:
        source = GridSource.TEST_GRID
        origin = f"vllm-test:{entry.test}"
        cases = subsample(points)
    elif entry.correctness:
        source = GridSource.FALLBACK
        origin = f"vllm-test:{entry.test}@v0.13.0" if entry.test else "handwritten"
        cases = [{**entry.fixed, **c} for c in entry.correctness]
    else:
        source, origin, cases = GridSource.NONE, "", []
    for k, case in enumerate(cases):
        workloads.append({"id": f"c{k}", "purpose": "correctness", "origin": origin, "params": case,
                          "description": _describe(case)})
    for k, case in enumerate(entry.performance):
        params = {**entry.fixed, **{n: v for n, v in case.items() if n not in ("origin", "description")}}
        workloads.append({"id": f"p{k}", "purpose": "performance",
                          "origin": case.get("origin", "handwritten:model-sizes"), "params": params,
                          "description": case.get("description", _describe(params))})
    return WorkloadPlan(tuple(workloads), source, reason)
