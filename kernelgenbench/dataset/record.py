"""Typed, frozen task records (the JSON documents the schema describes), and their round trip to JSON.

Records travel as plain dicts (JSON Lines, parquet rows). `Task.from_dict` validates one and gives the
typed view the evaluator and `kgb prompt` use; `Task.to_dict` prints it back: `Task.from_dict(d).to_dict()
== d` for every valid record (tests assert it on every record the extractors and examples produce).
Extractors build records through these classes, so one model says what a record holds.

Closed sets of strings are `StrEnum`s: a member equals its string, and `to_dict` writes the plain string.
JSON tells an absent key from one holding the default value, so each part with optional keys remembers
which of them it spells out (`spelled`); tests/test_record_model.py checks these classes against the
JSON Schema, so the two cannot drift.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from kernelgenbench.dataset.schema import validate_record

RECORD_VERSION = 1


class Semantics(enum.StrEnum):
    """How outputs are compared (task.semantics)."""

    DETERMINISTIC = "deterministic"
    RANDOM = "random"
    UNINITIALIZED = "uninitialized"
    VIEW = "view"


class Purpose(enum.StrEnum):
    """What a workload is for (workload.purpose)."""

    CORRECTNESS = "correctness"
    PERFORMANCE = "performance"


class Direction(enum.StrEnum):
    """Data direction of a parameter (param.direction)."""

    IN = "in"
    OUT = "out"
    INOUT = "inout"


class WorkloadState(enum.StrEnum):
    """Whether a task has both kinds of workload (workload_status.state)."""

    OK = "ok"
    PARTIAL = "partial"
    NONE = "none"


class ParamKind(enum.StrEnum):
    """Normalized kind of a parameter's value (param.kind)."""

    TENSOR = "tensor"
    TENSOR_LIST = "tensor_list"
    OPTIONAL_TENSOR = "optional_tensor"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    STR = "str"
    SCALAR = "scalar"
    INT_LIST = "int_list"
    FLOAT_LIST = "float_list"
    BOOL_LIST = "bool_list"
    SCALAR_TYPE = "scalar_type"
    LAYOUT = "layout"
    DEVICE = "device"
    MEMORY_FORMAT = "memory_format"
    GENERATOR = "generator"
    ENUM = "enum"
    COMPLEX = "complex"
    OTHER = "other"


class ReturnKind(enum.StrEnum):
    """Normalized kind of a returned value (return.kind)."""

    TENSOR = "tensor"
    TENSOR_LIST = "tensor_list"
    OPTIONAL_TENSOR = "optional_tensor"
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    SCALAR = "scalar"
    SCALAR_TYPE = "scalar_type"
    OTHER = "other"


Category = enum.StrEnum("Category", [(c.upper().replace("-", "_"), c) for c in (
    "elementwise", "reduction", "normalization", "activation", "loss", "gemm", "blas1", "blas2", "blas3",
    "attention", "kv-cache", "quantization", "moe", "indexing", "sort", "scan", "creation", "copy",
    "view", "random", "convolution", "pooling", "padding", "upsample", "embedding", "sampling",
    "positional", "ssm", "linalg", "fft", "other")], module=__name__)
Category.__doc__ = "Operator family (task.category)."


class Platform(enum.StrEnum):
    """A platform a task applies to (task.platforms)."""

    ANY = "any"
    CUDA = "cuda"
    ROCM = "rocm"
    XPU = "xpu"
    NPU = "npu"
    MPS = "mps"
    CPU = "cpu"


class Benchmark(enum.StrEnum):
    """A curated set (task.benchmarks)."""

    MS = "ms"
    MC = "mc"


class CostUnit(enum.StrEnum):
    """The device ceiling a cost's flops are measured against (cost.unit)."""

    MATRIX = "matrix"
    VECTOR = "vector"


class CompareMode(enum.StrEnum):
    """How a compare rule relaxes elementwise comparison (compare[].mode)."""

    UNORDERED = "unordered"
    UNORDERED_WITHIN_SEGMENTS = "unordered_within_segments"
    TIES_ALLOWED = "ties_allowed"
    ANY_VALID = "any_valid"


class Validator(enum.StrEnum):
    """The evaluator's named checks an any_valid rule may use (compare[].validator)."""

    SCATTER_WRITES = "scatter_writes"


def _plain(value: Any) -> Any:
    """JSON-ready copy: enums as their strings, parts as dicts, tuples as lists (mappings copied)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Part):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


class Part:
    """Shared behaviour of the record's parts: enum coercion, `from_dict`, and `to_dict` that omits unspelled keys.

    Subclasses list their optional keys in `OPTIONAL` and map fields to their enum in `ENUMS` (a field
    holding a tuple gets each item coerced). `spelled` None means every optional key is written, except
    those of `NONE_IS_ABSENT` holding None (keys the schema does not let be null).
    """

    OPTIONAL: ClassVar[tuple[str, ...]] = ()
    NONE_IS_ABSENT: ClassVar[tuple[str, ...]] = ()  # optional keys the schema never lets be null
    ENUMS: ClassVar[Mapping[str, type[enum.Enum]]] = {}

    def __post_init__(self) -> None:
        for name, kind in self.ENUMS.items():
            value = getattr(self, name)
            if isinstance(value, tuple):
                object.__setattr__(self, name, tuple(kind(v) for v in value))
            elif value is not None:
                object.__setattr__(self, name, kind(value))

    def _written(self) -> Iterator[str]:
        spelled = getattr(self, "spelled", None)
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.name == "spelled" or (f.name in self.OPTIONAL and spelled is not None and f.name not in spelled):
                continue
            if f.name in self.NONE_IS_ABSENT and getattr(self, f.name) is None:
                continue
            yield f.name

    def to_dict(self) -> dict[str, Any]:
        """The part as JSON-ready data, exactly the keys it was read with (or built to spell)."""
        return {name: _plain(getattr(self, name)) for name in self._written()}

    @classmethod
    def spelled_in(cls, d: Mapping[str, Any]) -> frozenset[str]:
        """The optional keys of this part that `d` spells out."""
        return frozenset(k for k in cls.OPTIONAL if k in d)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Self:
        """The typed part of one (schema-valid) entry; a part with optional keys remembers which `d` spells."""
        return cls(**d, spelled=cls.spelled_in(d)) if cls.OPTIONAL else cls(**d)


_SPELLED = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Code(Part):
    """A self-contained Python module and the function in it to call."""

    module: str
    function: str
    code: str


@dataclass(frozen=True)
class Param(Part):
    """One parameter of the task's signature."""

    name: str
    type: str
    kind: ParamKind
    mutable: bool
    optional: bool
    default: str | None
    keyword_only: bool
    dtype: str | None = None
    alias: str | None = None
    direction: Direction = Direction.IN
    description: str = ""
    spelled: frozenset[str] | None = _SPELLED

    OPTIONAL = ("dtype", "alias", "direction", "description")
    ENUMS = {"kind": ParamKind, "direction": Direction}


@dataclass(frozen=True)
class Return(Part):
    """One returned value."""

    name: str
    type: str
    kind: ReturnKind
    alias: str | None

    ENUMS = {"kind": ReturnKind}


@dataclass(frozen=True)
class Tolerance(Part):
    """|out - ref| <= atol + rtol * |ref|, with an optional share of elements allowed outside."""

    atol: float
    rtol: float
    max_mismatch: float = 0.0
    spelled: frozenset[str] | None = _SPELLED

    OPTIONAL = ("max_mismatch",)


@dataclass(frozen=True)
class Workload(Part):
    """One concrete case: argument specs, or parameters of the record's input generator."""

    id: str
    purpose: Purpose
    origin: str
    args: Mapping[str, Any] | None = None
    params: Mapping[str, Any] | None = None
    description: str = ""
    spelled: frozenset[str] | None = _SPELLED

    OPTIONAL = ("args", "params", "description")
    NONE_IS_ABSENT = ("args", "params")
    ENUMS = {"purpose": Purpose}


@dataclass(frozen=True)
class WorkloadStatus(Part):
    """Why the workload list is what it is."""

    state: WorkloadState
    reason: str

    ENUMS = {"state": WorkloadState}

    @classmethod
    def of(cls, purposes: set[str] | frozenset[str], reason: str) -> WorkloadStatus:
        """ok with both purposes (reason dropped), partial with one, none with neither."""
        if purposes == {Purpose.CORRECTNESS, Purpose.PERFORMANCE}:
            return cls(WorkloadState.OK, "")
        return cls(WorkloadState.PARTIAL if purposes else WorkloadState.NONE, reason)


@dataclass(frozen=True)
class Cost(Part, Mapping[str, str]):
    """Work of a workload as expressions over its arguments; reads as the mapping of its spelled keys."""

    flops: str
    bytes: str
    reads: str | None = None
    writes: str | None = None
    unit: CostUnit | None = None
    spelled: frozenset[str] | None = _SPELLED

    OPTIONAL = ("reads", "writes", "unit")
    NONE_IS_ABSENT = OPTIONAL
    ENUMS = {"unit": CostUnit}

    def __getitem__(self, key: str) -> str:
        if key not in set(self._written()):
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return self._written()

    def __len__(self) -> int:
        return sum(1 for _ in self._written())


@dataclass(frozen=True)
class Provenance(Part):
    """Where the task came from, precisely enough to find the upstream text again."""

    upstream: str
    version: str
    commit: str | None
    file: str
    line: int | None
    extractor: str


@dataclass(frozen=True)
class Segments(Part):
    """How an unordered_within_segments rule cuts its target: labels per `repeat` elements, up to `limit`."""

    labels: str
    repeat: int | str = 1
    limit: str | None = None
    spelled: frozenset[str] | None = _SPELLED

    OPTIONAL = ("repeat", "limit")
    NONE_IS_ABSENT = ("limit",)


@dataclass(frozen=True)
class CompareRule(Part):
    """A declared relaxation of one output's comparison, where upstream leaves its order unspecified."""

    target: str
    mode: CompareMode
    upstream: str
    dim: int | str | None = None
    source: str | None = None
    distinct: bool = False
    segments: Segments | None = None
    unless: str | None = None
    validator: Validator | None = None
    spelled: frozenset[str] | None = _SPELLED

    OPTIONAL = ("dim", "source", "distinct", "segments", "unless", "validator")
    NONE_IS_ABSENT = ("source", "segments", "unless", "validator")
    ENUMS = {"mode": CompareMode, "validator": Validator}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CompareRule:
        """The typed rule of one (schema-valid) `compare` entry."""
        seg = d.get("segments")
        segments = Segments.from_dict(seg) if seg else None
        return cls(**{**d, "segments": segments}, spelled=cls.spelled_in(d))


@dataclass(frozen=True)
class Task(Part):
    """A validated task record."""

    id: str
    source: str  # an open set: the registered sources (kernelgenbench/sources.py)
    name: str
    overload: str
    signature: str | None
    params: tuple[Param, ...]
    returns: tuple[Return, ...]
    category: Category
    tags: tuple[str, ...]
    description: str
    entry_point: str
    semantics: Semantics
    reference: Code | None
    inputs: Code | None
    workloads: tuple[Workload, ...]
    workload_status: WorkloadStatus
    tolerance: Mapping[str, Tolerance]
    cost: Cost | None
    provenance: Provenance
    platforms: tuple[Platform, ...]
    benchmarks: tuple[Benchmark, ...]
    details: Mapping[str, Any]
    compare: tuple[CompareRule, ...] = ()
    record_version: int = RECORD_VERSION
    spelled: frozenset[str] | None = _SPELLED

    OPTIONAL = ("compare",)
    ENUMS = {"category": Category, "semantics": Semantics, "platforms": Platform, "benchmarks": Benchmark}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any], *, validate: bool = True) -> Task:
        """Validate a record against the schema (unless the caller already has) and return its typed view."""
        if validate:
            validate_record(record)
        code = lambda c: Code(**c) if c else None  # noqa: E731
        return cls(
            **{k: record[k] for k in ("id", "source", "name", "overload", "signature", "category", "description",
                                      "entry_point", "semantics", "details", "record_version")},
            params=tuple(Param.from_dict(p) for p in record["params"]),
            returns=tuple(Return(**r) for r in record["returns"]),
            tags=tuple(record["tags"]),
            reference=code(record["reference"]),
            inputs=code(record["inputs"]),
            workloads=tuple(Workload.from_dict(w) for w in record["workloads"]),
            workload_status=WorkloadStatus(**record["workload_status"]),
            tolerance={k: Tolerance.from_dict(v) for k, v in record["tolerance"].items()},
            cost=Cost.from_dict(record["cost"]) if record["cost"] is not None else None,
            provenance=Provenance(**record["provenance"]),
            platforms=tuple(record["platforms"]),
            benchmarks=tuple(record["benchmarks"]),
            compare=tuple(CompareRule.from_dict(c) for c in record.get("compare", ())),
            spelled=cls.spelled_in(record),
        )

    @property
    def mutable_params(self) -> tuple[Param, ...]:
        """Parameters the op writes; the evaluator compares them after the call."""
        return tuple(p for p in self.params if p.mutable)

    @property
    def correctness_workloads(self) -> tuple[Workload, ...]:
        """Workloads checked for numerics (performance workloads are checked too, but timed)."""
        return tuple(w for w in self.workloads if w.purpose == Purpose.CORRECTNESS)

    @property
    def performance_workloads(self) -> tuple[Workload, ...]:
        """Workloads that are timed."""
        return tuple(w for w in self.workloads if w.purpose == Purpose.PERFORMANCE)

    @functools.cached_property
    def content_hash(self) -> str:
        """sha256 of the canonical JSON of the record: its identity for manifests and caches."""
        return content_hash(self.to_dict())


def canonical_json(record: Mapping[str, Any]) -> str:
    """The record as compact JSON with sorted keys: equal records give equal text."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(record: Mapping[str, Any]) -> str:
    """sha256 hex digest of the record's canonical JSON."""
    return hashlib.sha256(canonical_json(record).encode()).hexdigest()
