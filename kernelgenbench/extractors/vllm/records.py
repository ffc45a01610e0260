"""Task records for vLLM ops: one per `.def`, with the curated reference attached where its schema matches."""

from __future__ import annotations

import difflib
import enum
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import kernelgenbench
from kernelgenbench.datafiles import load_data
from kernelgenbench.dataset.record import (
    RECORD_VERSION,
    Benchmark,
    Code,
    Param,
    Provenance,
    Purpose,
    Return,
    Semantics,
    WorkloadStatus,
)
from kernelgenbench.extractors.vllm.curated import CuratedEntry
from kernelgenbench.extractors.vllm.guards import platforms_for
from kernelgenbench.extractors.vllm.registrations import CATCH_ALL, OpDef, OpImpl
from kernelgenbench.extractors.vllm.schemas import ParsedSchema, canonical_schema, split_top_level
from kernelgenbench.extractors.vllm.test_grids import TestGrid, grid_to_dict
from kernelgenbench.extractors.vllm.workloads import GridSource, WorkloadPlan
from kernelgenbench.extractors.vllm.wrapper_schema import comparable
from kernelgenbench.extractors.vllm.wrappers import Wrapper, wrapper_to_dict
from kernelgenbench.reference_impls.inline import build_text

NO_GENERATOR = "no reference/input generator for this op"


class ReferenceStatus(enum.Enum):
    """Whether a record carries a reference (details.vllm.reference_status)."""

    OK = "ok"
    MISSING = "missing"
    SCHEMA_MISMATCH = "schema_mismatch"


@dataclass(frozen=True)
class SourceInfo:
    """Which vLLM the records come from."""

    version: str
    commit: str | None


@dataclass(frozen=True)
class CategoryRules:
    """Name heuristics for the category of an op without a curated entry (vllm_categories.yaml)."""

    rules: tuple[tuple[re.Pattern[str], str], ...]
    default: str
    default_tolerance: Mapping[str, Mapping[str, float]]

    def category(self, name: str) -> str:
        """The category of the first rule matching `name`."""
        return next((c for p, c in self.rules if p.search(name)), self.default)


@functools.cache
def category_rules() -> CategoryRules:
    """The rules shipped in kernelgenbench/data/vllm_categories.yaml."""
    data = load_data("vllm_categories.yaml", top=dict)
    rules = tuple((re.compile(r["pattern"]), r["category"]) for r in data["rules"])
    return CategoryRules(rules, data["default"], data["default_tolerance"])


@dataclass(frozen=True)
class RenamedParam:
    """A schema argument whose name repeats an earlier one, renamed so that keyword calls stay possible."""

    position: int
    schema_name: str
    name: str
    why: str


def unique_param_names(schema: ParsedSchema, wrapper: Wrapper | None, namespace: str) -> tuple[list[str], list[RenamedParam]]:
    """Argument names with repeats renamed: after the wrapper's argument at that position, else name_<pos>."""
    names = [a.name for a in schema.args]
    call = None
    if wrapper is not None:
        call = next((c for c in wrapper.calls if c.namespace == namespace and c.op == schema.name), None)
    renamed: list[RenamedParam] = []
    seen: set[str] = set()
    for pos, name in enumerate(list(names)):
        if name not in seen:
            seen.add(name)
            continue
        candidate = call.args[pos] if call is not None and pos < len(call.args) else ""
        if re.fullmatch(r"[A-Za-z_]\w*", candidate) and candidate not in names:
            new, why = candidate, f"{wrapper.name if wrapper else ''} passes `{candidate}` at this position"
        else:
            new, why = f"{name}_{pos}", "repeated name; suffixed with its position"
        names[pos] = new
        seen.add(new)
        renamed.append(RenamedParam(pos, name, new, why))
    return names, renamed


def schema_differences(reference: str, revision: str) -> list[str]:
    """Readable differences between two canonical schemas: '-' lines the reference has, '+' the revision's."""
    def parts(text: str) -> list[str]:
        head, _, rest = text.partition("(")
        args, _, ret = rest.rpartition(") -> ")
        return [f"name {head}"] + [f"arg {a}" for a in split_top_level(args)] + [f"returns {ret}"]

    return [line for line in difflib.ndiff(parts(reference), parts(revision)) if line[:1] in "+-"]


_PARAM_KEYS = frozenset({"dtype", "alias", "direction"})  # the optional param keys vLLM records spell


def _params(schema: ParsedSchema, names: Sequence[str]) -> list[dict[str, Any]]:
    return [
        Param(name, a.type_text, a.kind, a.mutable, a.optional, a.default, a.keyword_only, dtype=None, alias=a.alias,
              direction="inout" if a.mutable else "in", spelled=_PARAM_KEYS).to_dict()
        for a, name in zip(schema.args, names, strict=True)
    ]


def _returns(schema: ParsedSchema) -> list[dict[str, Any]]:
    return [Return(r.name, r.type_text, r.kind, r.alias).to_dict() for r in schema.returns]


def _workload_status(workloads: Sequence[Mapping[str, Any]], reason_none: str) -> dict[str, str]:
    purposes = {w["purpose"] for w in workloads}
    missing = sorted({Purpose.CORRECTNESS, Purpose.PERFORMANCE} - purposes)
    reason = f"no {missing[0]} workload: {reason_none}" if purposes and missing else reason_none
    return WorkloadStatus.of(purposes, reason).to_dict()


@dataclass(frozen=True)
class RecordInput:
    """Everything one record is built from."""

    op: OpDef
    record_overload: str  # the id's overload part: the schema overload, or a disambiguating suffix
    schema: ParsedSchema | None
    impls: tuple[OpImpl, ...]
    wrapper: Wrapper | None
    tests: tuple[TestGrid, ...]
    curated_name: str | None
    entry: CuratedEntry | None
    plan: WorkloadPlan | None
    primary_id: str | None  # set on a record whose name another file already took
    kind: str = "registered"  # or "wrapper": a curated name that is a vllm/_custom_ops.py function
    wraps: tuple[str, ...] = ()  # for a wrapper: ids of the registered ops it calls
    checked: tuple[str, ...] = ()  # the checked vLLM releases whose schema of the op the reference implements


def _reference_match(inp: RecordInput) -> tuple[ReferenceStatus, list[str], str | None]:
    """Whether the curated entry's schema is this revision's: the status, the differences, the entry's schema."""
    entry, schema = inp.entry, inp.schema
    if entry is None or inp.primary_id is not None:
        return ReferenceStatus.MISSING, [], None
    differences: list[str] = []
    try:
        reference_schema = canonical_schema(entry.schema)
    except RuntimeError as exc:
        reference_schema = None
        differences = [f"the entry's schema does not parse: {str(exc).splitlines()[0]}"]
    revision_schema = schema.canonical if schema is not None else None
    same = reference_schema == revision_schema
    if inp.kind == "wrapper" and reference_schema is not None and revision_schema is not None:
        same = comparable(reference_schema) == comparable(revision_schema)
    if reference_schema is not None and same:
        return ReferenceStatus.OK, differences, reference_schema
    if reference_schema is not None:
        differences = (schema_differences(reference_schema, revision_schema) if revision_schema
                       else ["the op has no schema at this revision (name-only def)"])
    return ReferenceStatus.SCHEMA_MISMATCH, differences, reference_schema


def _workloads(inp: RecordInput, status: ReferenceStatus, differences: list[str]) -> tuple[list[dict[str, Any]], str]:
    """The record's workloads, and why there are none (or not both kinds)."""
    entry = inp.entry
    if status is ReferenceStatus.OK and entry is not None and inp.plan is not None:
        if entry.inputs:
            return [dict(w) for w in inp.plan.workloads], inp.plan.reason or "the entry lists no such workload"
        return [], "the curated entry has no input generator"
    if status is ReferenceStatus.SCHEMA_MISMATCH:
        return [], "the curated reference implements another schema: " + "; ".join(differences)
    return [], NO_GENERATOR


def _description(inp: RecordInput) -> str:
    # A wrapper named like the op documents the op; one that picks between ops (scaled_fp8_quant)
    # documents itself, so the curated entry's words come first then.
    w = inp.wrapper
    own_doc = w.docstring if w and w.name == inp.op.name and w.docstring else ""
    other_doc = w.docstring if w and w.docstring else ""
    return own_doc or (inp.entry.description if inp.entry else "") or other_doc


@dataclass(frozen=True)
class _Match:
    """What comparing the curated entry with this revision found, and the workloads that follow."""

    status: ReferenceStatus
    differences: list[str]
    reference_schema: str | None
    reason: str

    @property
    def ok(self) -> bool:
        """The record carries the entry's reference."""
        return self.status is ReferenceStatus.OK


def _details(inp: RecordInput, keys: list[str], renamed: list[RenamedParam], m: _Match) -> dict[str, Any]:
    """details.vllm: the registration, wrapper, tests and what became of the curated entry."""
    op, entry, schema = inp.op, inp.entry, inp.schema
    return {
        "kind": inp.kind, "wraps": list(inp.wraps), "namespace": op.namespace, "dispatch_keys": keys,
        "guards": list(op.guards), "reference_status": m.status.value, "build": op.build, "block": op.block,
        "torch_tags": list(op.torch_tags), "canonical_schema": schema.canonical if schema else None,
        "impls": [{"dispatch_key": i.dispatch_key, "file": i.location.file, "line": i.location.line,
                   "guards": list(i.guards)} for i in inp.impls],
        "wrapper": wrapper_to_dict(inp.wrapper) if inp.wrapper else None,
        "tests": [grid_to_dict(g) for g in inp.tests],
        "curated_name": inp.curated_name,
        "curated_entry": entry.where if entry else None,
        "reference_schema": m.reference_schema,
        "reference_checked": list(inp.checked) if m.ok else [],
        "schema_differences": m.differences,
        "renamed_params": [{"position": r.position, "schema_name": r.schema_name, "name": r.name, "why": r.why}
                           for r in renamed],
        "workload_source": (
            {"kind": inp.plan.source.value, "test": entry.test if entry else None, "reason": inp.plan.reason}
            if m.ok and inp.plan is not None else {"kind": GridSource.NONE.value, "test": None, "reason": m.reason}
        ),
        "primary_id": inp.primary_id,
    }


def _curated_parts(inp: RecordInput, m: _Match) -> dict[str, Any]:
    """The fields the curated entry decides: category, semantics, reference, inputs, tolerance, cost."""
    entry, rules = inp.entry, category_rules()
    used = entry if m.ok else None
    # One text per record: the reference and its generator with exactly what they reach (inline.build_text).
    text = build_text([(entry.module, fn) for fn in (used.function, used.inputs) if fn]) if used else ""
    code = lambda fn: Code(entry.module, fn, text).to_dict()  # noqa: E731
    return {
        "category": entry.category if entry else rules.category(inp.op.name),
        "semantics": entry.semantics if entry else Semantics.DETERMINISTIC.value,
        "reference": code(used.function) if used else None,
        "inputs": code(used.inputs) if used and used.inputs else None,
        "tolerance": {k: {kk: float(vv) for kk, vv in v.items()} for k, v in
                      (entry.tolerance if entry else rules.default_tolerance).items()},
        "cost": dict(used.cost) if used and used.cost else None,
        "benchmarks": [Benchmark.MS.value] if m.ok and inp.curated_name else [],
    }


def build_record(inp: RecordInput, source: SourceInfo) -> tuple[dict[str, Any], ReferenceStatus, list[str]]:
    """The record, its reference status and the schema differences (non-empty on a mismatch)."""
    op, schema, entry = inp.op, inp.schema, inp.entry
    names, renamed = unique_param_names(schema, inp.wrapper, op.namespace) if schema is not None else ([], [])
    keys = sorted({i.dispatch_key for i in inp.impls} | ({CATCH_ALL} if op.catch_all else set()))
    status, differences, reference_schema = _reference_match(inp)
    assert entry is not None or status is not ReferenceStatus.OK
    workloads, reason = _workloads(inp, status, differences)
    m = _Match(status, differences, reference_schema, reason)
    record = {
        "record_version": RECORD_VERSION,
        "id": f"vllm/{op.name}" + (f".{inp.record_overload}" if inp.record_overload else ""),
        "source": "vllm", "name": op.name, "overload": inp.record_overload, "signature": op.schema,
        "params": _params(schema, names) if schema else [],
        "returns": _returns(schema) if schema else [],
        "tags": sorted(set(keys) | set(op.torch_tags)),
        "description": _description(inp),
        "entry_point": f"{op.name}_{op.overload}" if op.overload else op.name,
        "workloads": workloads,
        "workload_status": _workload_status(workloads, reason),
        "provenance": Provenance("vllm", source.version, source.commit, op.location.file, op.location.line,
                                 kernelgenbench.__version__).to_dict(),
        "platforms": platforms_for(op.guards, op.build),
        "details": {"vllm": _details(inp, keys, renamed, m)},
        **_curated_parts(inp, m),
    }
    if m.ok and entry and entry.compare:
        record["compare"] = [dict(c) for c in entry.compare]
    return record, status, differences
