"""Load the task-record JSON Schema shipped in the package and validate records against it."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from typing import Any

import jsonschema
import jsonschema_rs
from referencing import Registry, Resource

from kernelgenbench.errors import KgbError, RecordInvalid
from kernelgenbench.sources import Source, sources

_TASK_ID = "urn:kernelgenbench:task"


def _read(resource: str) -> dict[str, Any]:
    package, _, name = resource.partition(":")
    return json.loads((resources.files(package) / name).read_text())


def with_sources(task: dict[str, Any], registered: tuple[Source, ...]) -> dict[str, Any]:
    """The task schema with its source-dependent parts written from the registry: the source enum, the
    id pattern, provenance.upstream, details.<source> and the rule that a record has its source's details."""
    s = copy.deepcopy(task)
    names = [src.name for src in registered]
    props = s["properties"]
    props["source"]["enum"] = names
    props["id"]["pattern"] = "^(" + "|".join(names) + r")/[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?$"
    props["details"]["properties"] = {n: {"$ref": src.schema_id} for n, src in zip(names, registered, strict=True)}
    s["$defs"]["provenance"]["properties"]["upstream"]["enum"] = list(dict.fromkeys(src.upstream for src in registered))
    s["allOf"] = [{"if": {"properties": {"source": {"const": n}}},
                   "then": {"properties": {"details": {"required": [n]}}}} for n in names]
    return s


@functools.cache
def _schemas(registered: tuple[Source, ...]) -> dict[str, dict[str, Any]]:
    """The task schema (for these sources) and each source's details schema, by $id."""
    task = with_sources(_read("kernelgenbench.dataset:schema/task.schema.json"), registered)
    out = {task["$id"]: task}
    for src in registered:
        details = _read(src.schema)
        if details.get("$id") != src.schema_id:
            raise KgbError(f"{src.schema}: its $id must be {src.schema_id!r} (source {src.name!r})")
        out[src.schema_id] = details
    return out


def task_schema() -> dict[str, Any]:
    """The task-record JSON Schema (the document users read; sub-schemas are referenced by URN)."""
    return _schemas(sources())[_TASK_ID]


@functools.cache
def _validator(registered: tuple[Source, ...]) -> jsonschema.protocols.Validator:
    schemas = _schemas(registered)
    registry: Registry = Registry().with_resources((i, Resource.from_contents(s)) for i, s in schemas.items())
    cls = jsonschema.validators.validator_for(schemas[_TASK_ID])
    cls.check_schema(schemas[_TASK_ID])
    return cls(schemas[_TASK_ID], registry=registry, format_checker=cls.FORMAT_CHECKER)


@functools.cache
def _fast_validator(registered: tuple[Source, ...]) -> Any:
    """The same schemas compiled by jsonschema-rs: about 200x faster, used to pass valid records quickly."""
    schemas = _schemas(registered)
    registry = jsonschema_rs.Registry(list(schemas.items()))
    return jsonschema_rs.validator_for(schemas[_TASK_ID], registry=registry, validate_formats=True)


def _describe(error: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in error.absolute_path) or "<record>"
    # oneOf failures are unreadable at the top; the best-matching sub-error says what to fix.
    best = jsonschema.exceptions.best_match([error]) if error.context else error
    return f"at {where}: {best.message}"


def record_errors(record: Mapping[str, Any]) -> list[str]:
    """All schema violations of one record, most relevant first; empty when the record is valid."""
    # Validation at every boundary is most of an extraction's time with jsonschema alone (about 2 ms a
    # record); the compiled validator settles valid records, and jsonschema, the reference implementation,
    # explains (and has the last word on) any record the fast one rejects.
    try:
        fast_ok = _fast_validator(sources()).is_valid(record)
    except ValueError:  # a value JSON cannot hold (an object, a str subclass): jsonschema says what it is
        fast_ok = False
    if fast_ok:
        return semantic_errors(record)
    errors = sorted(_validator(sources()).iter_errors(record), key=jsonschema.exceptions.relevance, reverse=True)
    msgs = [_describe(e) for e in errors]
    msgs.extend(semantic_errors(record) if not msgs else [])
    return msgs


def semantic_errors(record: Mapping[str, Any]) -> list[str]:
    """Cross-field invariants that JSON Schema cannot say."""
    errs: list[str] = []
    rid = record.get("id", "")
    src, name, ov = record.get("source"), record.get("name"), record.get("overload")
    expected = f"{src}/{name}" + (f".{ov}" if ov else "")
    if rid != expected:
        errs.append(f"at id: {rid!r} does not match source/name.overload {expected!r}")
    param_names = [p["name"] for p in record.get("params", [])]
    if len(set(param_names)) != len(param_names):
        errs.append("at params: duplicate parameter names")
    seen: set[str] = set()
    for i, w in enumerate(record.get("workloads", [])):
        if w["id"] in seen:
            errs.append(f"at workloads/{i}/id: duplicate workload id {w['id']!r}")
        seen.add(w["id"])
        unknown = set(w.get("args", {})) - set(param_names)
        if unknown:
            errs.append(f"at workloads/{i}/args: unknown parameters {sorted(unknown)}")
        if "params" in w and record.get("inputs") is None:
            errs.append(f"at workloads/{i}/params: generator params given but the record has no inputs generator")
    purposes = {w["purpose"] for w in record.get("workloads", [])}
    state = record.get("workload_status", {}).get("state")
    want = "ok" if purposes == {"correctness", "performance"} else ("partial" if purposes else "none")
    if state != want:
        errs.append(f"at workload_status/state: is {state!r} but the workloads make it {want!r}")
    if state != "ok" and not record.get("workload_status", {}).get("reason"):
        errs.append("at workload_status/reason: a task without full workloads must say why")
    errs.extend(_compare_errors(record))
    return errs


def return_index(target: str) -> int | None:
    """The returned value a compare target's path 'return[i]...' starts at; None for a parameter's name."""
    if not target.startswith("return["):
        return None
    return int(target[len("return["):target.index("]")])


def _compare_errors(record: Mapping[str, Any]) -> list[str]:
    """Each compare rule targets an output the record has, once, and names only its parameters and returns."""
    params = {p["name"]: p for p in record.get("params", [])}
    n_returns = len(record.get("returns", []))
    is_return = lambda name: (i := return_index(name)) is not None and i < n_returns  # noqa: E731
    errs: list[str] = []
    targets: set[str] = set()
    for i, rule in enumerate(record.get("compare", [])):
        t = rule["target"]
        if t in targets:
            errs.append(f"at compare/{i}/target: a second rule for {t!r}")
        targets.add(t)
        if not (is_return(t) or params.get(t, {}).get("mutable")):
            errs.append(f"at compare/{i}/target: {t!r} is neither a return nor a mutable parameter")
        seg = rule.get("segments") or {}
        named = [rule.get("dim"), rule.get("unless"), seg.get("labels"), seg.get("repeat"), seg.get("limit")]
        for name in [n for n in named if isinstance(n, str)]:
            if name not in params and not is_return(name):
                errs.append(f"at compare/{i}: {name!r} is neither a parameter nor a return")
        if rule.get("source") is not None and rule["source"] not in params:
            errs.append(f"at compare/{i}/source: {rule['source']!r} is not a parameter")
        missing = [n for n in _VALIDATOR_PARAMS.get(rule.get("validator"), ()) if n not in params]
        if missing:
            errs.append(f"at compare/{i}/validator: {rule['validator']} reads parameters {missing} the record lacks")
    return errs


# The parameters each `any_valid` validator of the evaluator reads, by name.
_VALIDATOR_PARAMS = {"scatter_writes": ("self", "dim", "index", "src")}


def validate_record(record: Mapping[str, Any]) -> None:
    """Raise RecordInvalid naming the record id and its first error, or return None when valid."""
    errors = record_errors(record)
    if errors:
        raise RecordInvalid(str(record.get("id", "<no id>")), errors[0])


def iter_invalid(records: Iterable[Mapping[str, Any]]) -> Iterator[RecordInvalid]:
    """Yield one RecordInvalid per broken record, keeping going past each."""
    for record in records:
        errors = record_errors(record)
        if errors:
            yield RecordInvalid(str(record.get("id", "<no id>")), errors[0])
