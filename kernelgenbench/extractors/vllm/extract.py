"""Extract every vLLM op of a source tree into task records, and say what happened to the curated ones."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.errors import SourceNotFound, SourceParseError
from kernelgenbench.extractors.vllm.curated import CuratedData, CuratedEntry, load_curated_data
from kernelgenbench.extractors.vllm.records import RecordInput, ReferenceStatus, SourceInfo, build_record
from kernelgenbench.extractors.vllm.registrations import (
    OpDef,
    OpImpl,
    Registrations,
    scan_registrations,
)
from kernelgenbench.extractors.vllm.schemas import ParsedSchema, canonical_schema, parse_op_schema
from kernelgenbench.extractors.vllm.test_grids import TestScan, scan_tests, tests_calling
from kernelgenbench.extractors.vllm.workloads import plan_workloads
from kernelgenbench.extractors.vllm.wrapper_schema import NotASchema, comparable, wrapper_schema
from kernelgenbench.extractors.vllm.wrappers import WRAPPER_FILE, Wrapper, parse_wrappers, wrapper_for
from kernelgenbench.locations import Location

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class CuratedOutcome:
    """What became of one curated name at this revision."""

    name: str
    state: str  # ok | schema_mismatch | absent | removed | no_entry
    detail: str


@dataclass(frozen=True)
class Extraction:
    """The records of one source tree and everything worth reporting about them."""

    records: tuple[dict[str, Any], ...]
    skipped: tuple[str, ...]  # one line each: file:line: why
    curated: tuple[CuratedOutcome, ...]
    invalid: tuple[str, ...]  # records that failed validation (a bug; not written)
    source: SourceInfo
    unreadable: tuple[str, ...] = ()  # registration files or definitions that could not be read (file:line: why)
    lost: tuple[str, ...] = ()  # curated names absent whose op a registration that could not be read names

    @property
    def lost_curated(self) -> list[CuratedOutcome]:
        """Curated ops absent because a registration naming them could not be read (not removed upstream)."""
        return [c for c in self.curated_in("absent") if c.name in self.lost]

    def curated_in(self, state: str) -> list[CuratedOutcome]:
        """Curated outcomes in one state."""
        return [c for c in self.curated if c.state == state]

    def summary(self) -> str:
        """One line: records written, curated with reference, mismatches, missing, skipped files."""
        parts = [
            f"{len(self.records)} records (vLLM {self.source.version}, commit {self.source.commit or 'unknown'})",
            f"curated with reference: {len(self.curated_in('ok'))}/{len(self.curated)}",
        ]
        mism = self.curated_in("schema_mismatch")
        parts.append(f"schema mismatches: {len(mism)}" + (f" ({', '.join(c.name for c in mism)})" if mism else ""))
        absent = self.curated_in("absent")
        parts.append(f"curated absent: {len(absent)}" + (f" ({', '.join(c.name for c in absent)})" if absent else ""))
        removed = self.curated_in("removed")
        parts.append(f"curated removed upstream: {len(removed)}"
                     + (f" ({', '.join(c.name for c in removed)})" if removed else ""))
        no_entry = self.curated_in("no_entry")
        parts.append(f"curated without entry: {len(no_entry)}"
                     + (f" ({', '.join(c.name for c in no_entry)})" if no_entry else ""))
        parts.append(f"skipped: {len(self.skipped)}" + (f" ({'; '.join(self.skipped)})" if self.skipped else ""))
        if self.invalid:
            parts.append(f"INVALID records not written: {len(self.invalid)} ({self.invalid[0]})")
        return "; ".join(parts)


def _impl_index(impls: tuple[OpImpl, ...]) -> dict[tuple[str, str, str], list[OpImpl]]:
    index: dict[tuple[str, str, str], list[OpImpl]] = {}
    for i in impls:
        index.setdefault((i.namespace, i.qualified_name, i.build), []).append(i)
    return index


def _record_overloads(defs: tuple[OpDef, ...], curated: frozenset[str] = frozenset()
                      ) -> Iterator[tuple[OpDef, str, OpDef | None]]:
    """Each def with the overload part of its id: the first def of a name keeps it, later ones get a suffix.

    A CPU-build def of a curated name always gets its suffix: the bare id belongs to the GPU op (whose
    reference the record would carry), so a CPU registration never stands in for it.
    """
    taken: dict[str, OpDef] = {}
    for d in defs:
        base = d.overload
        first = taken.get(d.qualified_name)
        if first is None and not (d.build == "cpu" and d.qualified_name in curated):
            taken[d.qualified_name] = d
            yield d, base, None
            continue
        # Deterministic: namespace, then the build where it differs from the first, then the line.
        suffix = d.namespace.lstrip("_") + (f"_{d.build}" if first is None or d.build != first.build else "")
        candidate = f"{base}_{suffix}" if base else suffix
        if f"{d.name}.{candidate}" in taken:
            candidate = f"{candidate}_L{d.location.line}"
        taken[f"{d.name}.{candidate}"] = d
        yield d, candidate, first or d


def resolve_entry(entry: CuratedEntry, revision_schema: str | None, checked: tuple[str, ...], *,
                  wrapper: bool = False) -> tuple[CuratedEntry, tuple[str, ...]]:
    """The entry's schema revision whose schema is this revision's, with the releases it was checked at.

    Schemas are compared exactly (canonical text; SymInt as int for a wrapper). Without a match the entry
    at its first schema comes back with no releases, and the record reports the mismatch.
    """
    if revision_schema is not None:
        want = comparable(revision_schema) if wrapper else revision_schema
        for candidate, revs in entry.schemas(checked):
            try:
                have = canonical_schema(candidate.schema)
            except RuntimeError:
                continue  # reported as the entry's parse error when its first schema is the one compared
            if (comparable(have) if wrapper else have) == want:
                return candidate, revs
    return entry, ()


@dataclass
class _Run:
    """What one extraction has read, and what it has set aside so far."""

    source: SourceInfo
    curated: CuratedData
    scan: TestScan
    wrappers: tuple[Wrapper, ...]
    impls: dict[tuple[str, str, str], list[OpImpl]]
    skipped: list[str]
    invalid: list[str] = dataclasses.field(default_factory=list)
    records: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    statuses: dict[str, tuple[ReferenceStatus, list[str]]] = dataclasses.field(default_factory=dict)


def _def_input(run: _Run, d: OpDef, overload: str, first: OpDef | None, schema: ParsedSchema | None) -> RecordInput:
    """Everything the record of one .def is built from: its impls, wrapper, tests and curated entry."""
    curated = run.curated
    wrapper_names = frozenset(w.name for w in run.wrappers if (d.namespace, d.name) in w.ops)
    entry = curated.entry_for(d.qualified_name) if first is None and d.build != "cpu" else None
    checked: tuple[str, ...] = ()
    if entry is not None:
        entry, checked = resolve_entry(entry, schema.canonical if schema else None, curated.checked)
    return RecordInput(
        op=d,
        record_overload=overload,
        schema=schema,
        impls=tuple(run.impls.get((d.namespace, d.qualified_name, d.build)) or []),
        wrapper=wrapper_for(run.wrappers, d.namespace, d.name),
        tests=tuple(tests_calling(run.scan.grids, d.namespace, d.name, wrapper_names)),
        curated_name=curated.curated_name_of(d.qualified_name),
        entry=entry,
        plan=plan_workloads(entry, run.scan, version=run.source.version) if entry is not None else None,
        primary_id=f"vllm/{first.name}" + (f".{first.overload}" if first.overload else "") if first else None,
        checked=checked,
    )


def _add_def(run: _Run, d: OpDef, overload: str, first: OpDef | None) -> None:
    """Build, validate and keep the record of one .def (a broken schema or entry is reported, not fatal)."""
    schema: ParsedSchema | None = None
    if d.schema is not None:
        try:
            schema = parse_op_schema(d.schema, file=d.location.file, line=d.location.line)
        except SourceParseError as exc:
            run.skipped.append(str(exc))
            return
    inp = _def_input(run, d, overload, first, schema)
    record, status, diffs = build_record(inp, run.source)
    errors = record_errors(record)
    if errors and inp.entry is not None:
        # A bad curated entry must not cost the op its record: report it, write the record without it.
        run.skipped.append(f"{inp.entry.where}: entry {d.qualified_name!r} makes an invalid record ({errors[0]}); "
                           "written without its reference")
        inp = dataclasses.replace(inp, entry=None, plan=None)
        record, status, diffs = build_record(inp, run.source)
        errors = record_errors(record)
    if errors:
        run.invalid.append(f"{record['id']} ({d.location}): {errors[0]}")
        return
    curated = run.curated
    key = d.qualified_name if d.qualified_name in curated.entries else curated.aliases.get(d.qualified_name,
                                                                                           d.qualified_name)
    if first is None and (key not in run.statuses or run.statuses[key][0] is not ReferenceStatus.OK):
        run.statuses[key] = (status, diffs)
    run.records.append(record)


def extract(root: Path, source: SourceInfo, *, curated: CuratedData | None = None,
            progress: Progress | None = None) -> Extraction:
    """Records for every .def under root/csrc, with wrappers, test grids and curated references."""
    if not (root / "csrc").is_dir():
        raise SourceNotFound(f"{root} has no csrc/ folder; pass a vLLM checkout or source distribution")
    step = progress or (lambda what, done, total: None)
    curated = curated or load_curated_data()
    skipped: list[str] = list(curated.problems)
    step("registrations", 0, 1)
    regs: Registrations = scan_registrations(root)
    skipped.extend(s.reason for s in regs.skipped)
    wrappers = _read_wrappers(root, skipped)
    step("tests", 0, 1)
    wanted = frozenset(e.test.split("::", 1)[0] for e in curated.entries.values() if e.test)
    scan: TestScan = scan_tests(root, wanted)
    skipped.extend(s.reason for s in scan.skipped)
    run = _Run(source, curated, scan, wrappers, _impl_index(regs.impls), skipped)
    defs = regs.defs
    present = {d.qualified_name for d in defs}
    # The curated references describe the GPU op: a CPU-build registration never stands in for it.
    curated_present = {d.qualified_name for d in defs if d.build != "cpu"}
    curated_present |= {curated.aliases[n] for n in curated_present if n in curated.aliases}  # renamed ops
    for k, (d, overload, first) in enumerate(_record_overloads(defs, frozenset(curated.entries) | set(curated.aliases))):
        step("records", k, len(defs))
        _add_def(run, d, overload, first)
    curated_present |= _add_wrapper_only(run, defs, present)
    step("records", len(defs), len(defs))
    outcomes = [_outcome(name, ops, curated, run.statuses, curated_present, source.version)
                for name, ops in curated.names.items()]
    return Extraction(tuple(run.records), tuple(skipped), tuple(outcomes), tuple(run.invalid), source,
                      tuple(s.reason for s in regs.skipped), _named_in_unreadable(root, regs, curated, outcomes))


def _named_in_unreadable(root: Path, regs: Registrations, curated: CuratedData,
                         outcomes: list[CuratedOutcome]) -> tuple[str, ...]:
    """Absent curated names whose op appears as a schema string (`"name(`) in a file that could not be read."""
    texts = []
    for path in sorted({s.path for s in regs.skipped}):
        try:
            texts.append((root / path).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    absent = [c.name for c in outcomes if c.state == "absent"]
    return tuple(name for name in absent
                 if any(f'"{op.split(".")[0]}(' in t for op in curated.names.get(name, ()) for t in texts))


def _read_wrappers(root: Path, skipped: list[str]) -> tuple[Wrapper, ...]:
    """The Python wrappers of vllm/_custom_ops.py; none (and a line in `skipped`) when absent or unreadable."""
    wrapper_path = root / WRAPPER_FILE
    if not wrapper_path.is_file():
        skipped.append(f"{WRAPPER_FILE}: not in the source tree (records have no wrapper)")
        return ()
    try:
        return parse_wrappers(wrapper_path.read_text(encoding="utf-8"))
    except SourceParseError as exc:
        skipped.append(str(exc))
        return ()


def _add_wrapper_only(run: _Run, defs: list[OpDef] | tuple[OpDef, ...], present: set[str]) -> set[str]:
    """Add the records of curated ops that have a Python wrapper but no registration of their own (an invalid
    one goes to `run.invalid`); the ops whose record was added."""
    by_op = {(d.namespace, d.qualified_name): d for d in reversed(defs)}  # the first def of each name wins
    schemas = _schemas_of(by_op.values())
    wrapper_by_name = {w.name: w for w in run.wrappers}
    added: set[str] = set()
    for op in run.curated.entries:
        if op in present or op not in wrapper_by_name:
            continue
        rec = _wrapper_record(wrapper_by_name[op], run.curated, run.scan, run.impls, by_op, schemas, run.source,
                              run.skipped)
        if rec is None:
            continue
        record, status, diffs = rec
        errors = record_errors(record)
        if errors:
            run.invalid.append(f"{record['id']} ({WRAPPER_FILE}): {errors[0]}")
            continue
        run.records.append(record)
        run.statuses[op] = (status, diffs)
        added.add(op)
    return added


def _schemas_of(defs: Iterable[OpDef]) -> dict[tuple[str, str], ParsedSchema]:
    out: dict[tuple[str, str], ParsedSchema] = {}
    for d in defs:
        if d.schema is not None:
            try:
                out[(d.namespace, d.qualified_name)] = parse_op_schema(d.schema, file=d.location.file,
                                                                       line=d.location.line)
            except SourceParseError:
                continue  # reported where the def's own record is built
    return out


def _wrapper_record(w: Wrapper, curated: CuratedData, scan: TestScan, impls: dict[tuple[str, str, str], list[OpImpl]],
                    by_op: dict[tuple[str, str], OpDef], schemas: dict[tuple[str, str], ParsedSchema],
                    source: SourceInfo, skipped: list[str]) -> tuple[dict[str, Any], ReferenceStatus, list[str]] | None:
    """The record of a curated name that is a Python wrapper: its call as a schema, the ops it calls."""
    called = [by_op[c] for c in w.ops if c in by_op]
    if not called:
        skipped.append(Location(WRAPPER_FILE, w.line).message(f"{w.name} calls no registered op; no record"))
        return None
    try:
        text = wrapper_schema(w, schemas)
        schema = parse_op_schema(text, file=WRAPPER_FILE, line=w.line)
    except (NotASchema, SourceParseError) as exc:
        skipped.append(Location(WRAPPER_FILE, w.line).message(
            f"{w.name}: its signature has no schema form ({exc}); no record"))
        return None
    first = called[0]
    op = OpDef(namespace=first.namespace, qualified_name=w.name, schema=text, location=Location(WRAPPER_FILE, w.line),
               guards=first.guards, build=first.build, block="vllm/_custom_ops.py")
    own = tuple(i for d in called for i in impls.get((d.namespace, d.qualified_name, d.build), []))
    entry, checked = resolve_entry(curated.entries[w.name], schema.canonical, curated.checked, wrapper=True)
    wrapper_names = frozenset({w.name})
    tests = tuple(g for g in scan.grids if g.wrappers & wrapper_names)
    inp = RecordInput(op=op, record_overload="", schema=schema, impls=own, wrapper=w, tests=tests,
                      curated_name=curated.curated_name_of(w.name), entry=entry,
                      plan=plan_workloads(entry, scan, version=source.version),
                      primary_id=None, kind="wrapper", wraps=tuple(f"vllm/{d.qualified_name}" for d in called),
                      checked=checked)
    return build_record(inp, source)


def _outcome(name: str, ops: tuple[str, ...], curated: CuratedData,
             statuses: dict[str, tuple[ReferenceStatus, list[str]]], present: set[str], version: str) -> CuratedOutcome:
    absent = [op for op in ops if op not in present]
    gone = [curated.entries[op] for op in absent if op in curated.entries and curated.entries[op].removed_at(version)]
    if absent and len(gone) == len(absent):
        # Declared by the entry and confirmed by this revision: vLLM dropped the op, nothing to match.
        return CuratedOutcome(name, "removed", "dropped by vLLM: " + ", ".join(
            f"{e.op} is in no checked release from {e.removed} on" for e in gone))
    if absent:
        return CuratedOutcome(name, "absent", f"not registered (outside the CPU build) at this revision: "
                                              f"{', '.join(absent)}")
    no_entry = [op for op in ops if op not in curated.entries]
    if no_entry:
        return CuratedOutcome(name, "no_entry", f"no curated entry for {', '.join(no_entry)}")
    mism = [(op, statuses[op][1]) for op in ops if op in statuses and statuses[op][0] is ReferenceStatus.SCHEMA_MISMATCH]
    if mism:
        return CuratedOutcome(name, "schema_mismatch",
                              "; ".join(f"{op}: {' '.join(d)}" for op, d in mism))
    if all(op in statuses and statuses[op][0] is ReferenceStatus.OK for op in ops):
        return CuratedOutcome(name, "ok", "")
    return CuratedOutcome(name, "no_entry", "a record of these ops was not written (see invalid records)")
