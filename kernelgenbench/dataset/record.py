"""Typed, frozen views of task records (the JSON documents the schema describes).

Records travel as plain dicts (JSON Lines, parquet rows); `Task.from_dict` validates one and gives the
typed view the evaluator and `kgb prompt` use. `Task.to_dict` returns the record exactly as it came.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kernelgenbench.dataset.schema import validate_record


@dataclass(frozen=True)
class Code:
    """A self-contained Python module and the function in it to call."""

    module: str
    function: str
    code: str


@dataclass(frozen=True)
class Param:
    """One parameter of the task's signature."""

    name: str
    type: str
    kind: str
    mutable: bool
    optional: bool
    default: str | None
    keyword_only: bool
    dtype: str | None = None
    alias: str | None = None
    direction: str = "in"
    description: str = ""


@dataclass(frozen=True)
class Return:
    """One returned value."""

    name: str
    type: str
    kind: str
    alias: str | None


@dataclass(frozen=True)
class Tolerance:
    """|out - ref| <= atol + rtol * |ref|, with an optional share of elements allowed outside."""

    atol: float
    rtol: float
    max_mismatch: float = 0.0


@dataclass(frozen=True)
class Workload:
    """One concrete case: argument specs, or parameters of the record's input generator."""

    id: str
    purpose: str
    origin: str
    args: Mapping[str, Any] | None = None
    params: Mapping[str, Any] | None = None
    description: str = ""


@dataclass(frozen=True)
class Segments:
    """How an unordered_within_segments rule cuts its target: labels per `repeat` elements, up to `limit`."""

    labels: str
    repeat: int | str = 1
    limit: str | None = None


@dataclass(frozen=True)
class CompareRule:
    """A declared relaxation of one output's comparison, where upstream leaves its order unspecified."""

    target: str
    mode: str
    upstream: str
    dim: int | str | None = None
    source: str | None = None
    distinct: bool = False
    segments: Segments | None = None
    unless: str | None = None
    validator: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CompareRule:
        """The typed rule of one (schema-valid) `compare` entry."""
        seg = d.get("segments")
        return cls(**{**d, "segments": Segments(**seg) if seg else None})


@dataclass(frozen=True)
class Task:
    """A validated task record."""

    id: str
    source: str
    name: str
    overload: str
    signature: str | None
    params: tuple[Param, ...]
    returns: tuple[Return, ...]
    category: str
    tags: tuple[str, ...]
    description: str
    entry_point: str
    semantics: str
    reference: Code | None
    inputs: Code | None
    workloads: tuple[Workload, ...]
    tolerance: Mapping[str, Tolerance]
    cost: Mapping[str, str] | None
    platforms: tuple[str, ...]
    benchmarks: tuple[str, ...]
    provenance: Mapping[str, Any]
    details: Mapping[str, Any]
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    compare: tuple[CompareRule, ...] = ()

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> Task:
        """Validate a record against the schema and return its typed view."""
        validate_record(record)
        code = lambda c: Code(**c) if c else None  # noqa: E731
        return cls(
            id=record["id"],
            source=record["source"],
            name=record["name"],
            overload=record["overload"],
            signature=record["signature"],
            params=tuple(Param(**p) for p in record["params"]),
            returns=tuple(Return(**r) for r in record["returns"]),
            category=record["category"],
            tags=tuple(record["tags"]),
            description=record["description"],
            entry_point=record["entry_point"],
            semantics=record["semantics"],
            reference=code(record["reference"]),
            inputs=code(record["inputs"]),
            workloads=tuple(Workload(**w) for w in record["workloads"]),
            tolerance={k: Tolerance(**v) for k, v in record["tolerance"].items()},
            cost=record["cost"],
            platforms=tuple(record["platforms"]),
            benchmarks=tuple(record["benchmarks"]),
            provenance=record["provenance"],
            details=record["details"],
            raw=record,
            compare=tuple(CompareRule.from_dict(c) for c in record.get("compare", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        """The record as it was loaded."""
        return dict(self.raw)

    @property
    def mutable_params(self) -> tuple[Param, ...]:
        """Parameters the op writes; the evaluator compares them after the call."""
        return tuple(p for p in self.params if p.mutable)

    @property
    def correctness_workloads(self) -> tuple[Workload, ...]:
        """Workloads checked for numerics (performance workloads are checked too, but timed)."""
        return tuple(w for w in self.workloads if w.purpose == "correctness")

    @property
    def performance_workloads(self) -> tuple[Workload, ...]:
        """Workloads that are timed."""
        return tuple(w for w in self.workloads if w.purpose == "performance")

    @property
    def content_hash(self) -> str:
        """sha256 of the canonical JSON of the record: its identity for manifests and caches."""
        return content_hash(self.raw)


def canonical_json(record: Mapping[str, Any]) -> str:
    """The record as compact JSON with sorted keys: equal records give equal text."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(record: Mapping[str, Any]) -> str:
    """sha256 hex digest of the record's canonical JSON."""
    return hashlib.sha256(canonical_json(record).encode()).hexdigest()
