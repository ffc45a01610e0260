"""The curated vLLM ops: the 50 names (vllm_curated_names.yaml) and the entries of vllm_curated_*.yaml.

Each entry says which reference implements an op at which schema, its input generator, tolerances, cost
and how its workloads come from the vLLM tests. Entries are read strictly (unknown keys, duplicate keys,
missing fields are problems naming file:line); a bad entry is reported and left out, the rest are kept.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from packaging.version import InvalidVersion, Version

from kernelgenbench.datafiles import DATA_PACKAGE, DataFile, check_keys, load_data, load_data_copy
from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location
from kernelgenbench.reference_impls.inline import top_level_names

_REQUIRED = ("schema", "module", "function", "category", "semantics", "tolerance")
_OPTIONAL = ("inputs", "cost", "description", "test", "grid_map", "fixed", "correctness", "performance",
             "compare", "revisions", "removed")
_REVISION_REQUIRED = ("since", "schema", "function")
_REVISION_OPTIONAL = ("name", "inputs", "fixed", "description")


@dataclass(frozen=True)
class SchemaRevision:
    """A later schema of a curated op, from the checked release `since` on, and the adapter that implements it.

    The adapter (function, inputs) is another function of the entry's module: it keeps the op's semantics
    and takes the arguments that release's schema has; `fixed` adds workload parameters its inputs need.
    `name` is the op's registered name from that release on when vLLM renamed it; `description`, when
    given, replaces the entry's for records of that schema.
    """

    since: str
    name: str | None
    schema: str
    function: str
    inputs: str | None
    fixed: Mapping[str, Any]
    description: str = ""


@dataclass(frozen=True)
class CuratedEntry:
    """One curated op: its reference, generator, tolerances and workload recipe."""

    op: str
    schema: str
    module: str
    function: str
    inputs: str | None
    category: str
    semantics: str
    tolerance: Mapping[str, Mapping[str, float]]
    cost: Mapping[str, str] | None
    description: str
    test: str | None
    grid_map: Mapping[str, str]
    fixed: Mapping[str, Any]
    correctness: tuple[Mapping[str, Any], ...]
    performance: tuple[Mapping[str, Any], ...]
    file: str
    line: int
    # The record's `compare` rules: where the upstream test leaves an output's order free.
    compare: tuple[Mapping[str, Any], ...] = ()
    revisions: tuple[SchemaRevision, ...] = ()  # later schemas, oldest first; `schema` is the first checked one's
    removed: str | None = None  # the first checked release without the op

    def schemas(self, checked: tuple[str, ...]) -> list[tuple[CuratedEntry, tuple[str, ...]]]:
        """Each schema the op had, as an entry implementing it, with the checked releases that had it."""
        starts = [checked[0] if checked else ""] + [r.since for r in self.revisions]
        ends = starts[1:] + [self.removed]
        out: list[tuple[CuratedEntry, tuple[str, ...]]] = []
        for k, (start, end) in enumerate(zip(starts, ends, strict=True)):
            revs = tuple(v for v in checked if _at_least(v, start) and (end is None or not _at_least(v, end)))
            entry = self
            if k:
                r = self.revisions[k - 1]
                entry = dataclasses.replace(self, schema=r.schema, function=r.function,
                                            inputs=r.inputs or self.inputs, fixed={**self.fixed, **r.fixed},
                                            description=r.description or self.description)
            out.append((entry, revs))
        return out

    def removed_at(self, version: str) -> bool:
        """Whether vLLM `version` comes at or after the release the entry says removed the op."""
        return self.removed is not None and _at_least(version, self.removed)

    @property
    def where(self) -> str:
        """'kernelgenbench/data/<file>:<line>' of the entry."""
        return f"kernelgenbench/data/{self.file}:{self.line}"


def _at_least(version: str, floor: str) -> bool:
    """version >= floor as releases order (a dev or local version of a release counts as that release)."""
    try:
        return Version(version).release >= Version(floor).release
    except InvalidVersion:
        return False


@dataclass(frozen=True)
class CuratedData:
    """Entries by op name, the curated names with the ops they stand for, and the problems met reading them."""

    entries: Mapping[str, CuratedEntry]
    names: Mapping[str, tuple[str, ...]]
    problems: tuple[str, ...]
    checked: tuple[str, ...] = ()  # the vLLM releases the references were checked against, oldest first

    @functools.cached_property
    def aliases(self) -> dict[str, str]:
        """Later registered names of renamed curated ops, to the entry's op name."""
        return {r.name: op for op, e in self.entries.items() for r in e.revisions if r.name and r.name != op}

    def entry_for(self, name: str) -> CuratedEntry | None:
        """The entry of a registered op name, under its curated or its later name."""
        return self.entries.get(name) or self.entries.get(self.aliases.get(name, ""))

    def curated_name_of(self, op: str) -> str | None:
        """The curated name an op (under its curated or its later name) stands for, or None."""
        op = self.aliases.get(op, op) if op not in self.entries else op
        return next((n for n, ops in self.names.items() if op in ops), None)


def _entry(op: str, df: DataFile, file: str) -> CuratedEntry:
    raw = check_keys(df, ("ops", op), required=_REQUIRED, optional=_OPTIONAL, what=f"entry {op!r}")
    line = df.where("ops", op).line or 1
    if not str(raw["schema"]).startswith(f"{op}("):
        raise SourceParseError(f"entry {op!r}: schema must start with '{op}('", at=df.where("ops", op, "schema"))
    try:
        defined = top_level_names(raw["module"])
    except SyntaxError as exc:
        raise SourceParseError(f"entry {op!r}: module {raw['module']} does not parse ({exc.msg})",
                               at=df.where("ops", op, "module")) from None
    for key in ("function", "inputs"):
        if raw.get(key) and raw[key] not in defined:
            raise SourceParseError(f"entry {op!r}: {raw['module']} defines no function {raw[key]!r}",
                                   at=df.where("ops", op, key))
    revisions = tuple(_revision(op, df, i, defined, raw["module"]) for i, _ in enumerate(raw.get("revisions") or ()))
    return CuratedEntry(
        op=op,
        schema=str(raw["schema"]),
        module=raw["module"],
        function=raw["function"],
        inputs=raw.get("inputs"),
        category=raw["category"],
        semantics=raw["semantics"],
        tolerance=raw["tolerance"] or {},
        cost=raw.get("cost"),
        description=" ".join(str(raw.get("description") or "").split()),
        test=raw.get("test"),
        grid_map=raw.get("grid_map") or {},
        fixed=raw.get("fixed") or {},
        correctness=tuple(raw.get("correctness") or ()),
        performance=tuple(raw.get("performance") or ()),
        file=file,
        line=line,
        compare=tuple(raw.get("compare") or ()),
        revisions=revisions,
        removed=str(raw["removed"]) if raw.get("removed") else None,
    )


def _revision(op: str, df: DataFile, i: int, defined: frozenset[str], module: str) -> SchemaRevision:
    """Item i of an entry's `revisions`, read strictly."""
    path = ("ops", op, "revisions", i)
    raw = check_keys(df, path, required=_REVISION_REQUIRED, optional=_REVISION_OPTIONAL,
                     what=f"entry {op!r}: revision {i}")
    name = str(raw.get("name") or op)
    if not str(raw["schema"]).startswith(f"{name}("):
        raise SourceParseError(f"entry {op!r}: revision schema must start with '{name}('",
                               at=df.where(*path, "schema"))
    for key in ("function", "inputs"):
        if raw.get(key) and raw[key] not in defined:
            raise SourceParseError(f"entry {op!r}: {module} defines no function {raw[key]!r}",
                                   at=df.where(*path, key))
    return SchemaRevision(since=str(raw["since"]), name=raw.get("name"), schema=str(raw["schema"]), function=raw["function"],
                          inputs=raw.get("inputs"), fixed=raw.get("fixed") or {},
                          description=" ".join(str(raw.get("description") or "").split()))


def curated_files() -> list[str]:
    """The vllm_curated_*.yaml files shipped in kernelgenbench/data, sorted."""
    return sorted(p.name for p in resources.files(DATA_PACKAGE).iterdir()
                  if p.name.startswith("vllm_curated_") and p.name.endswith(".yaml") and p.name != "vllm_curated_names.yaml")


def curated_names() -> dict[str, tuple[str, ...]]:
    """The 50 curated names and the registered ops each stands for."""
    data = load_data("vllm_curated_names.yaml", top=dict)
    return {name: tuple(ops or (name,)) for name, ops in data["curated"].items()}


def checked_revisions() -> tuple[str, ...]:
    """The vLLM releases the curated references were checked against, oldest first."""
    data = load_data("vllm_curated_names.yaml", top=dict)
    return tuple(sorted((str(v) for v in data.get("checked_revisions") or ()), key=Version))


def parse_curated(df: DataFile) -> tuple[dict[str, CuratedEntry], list[str]]:
    """The entries of one parsed curated file that read cleanly, and one problem line per bad entry."""
    entries: dict[str, CuratedEntry] = {}
    problems: list[str] = []
    if not isinstance(df.data, dict):
        return entries, [Location(df.file, 1).message("expected a mapping at the top level")]
    for op in df.data.get("ops") or {}:
        try:
            entries[op] = _entry(op, df, df.file.rsplit("/", 1)[-1])
        except SourceParseError as exc:
            problems.append(str(exc))
    return entries, problems


def load_curated_data() -> CuratedData:
    """Every curated entry that reads cleanly, the curated names, and one problem line per bad entry."""
    entries: dict[str, CuratedEntry] = {}
    problems: list[str] = []
    for file in curated_files():
        try:
            df = load_data_copy(file, top=dict)  # entries keep their own copies
        except SourceParseError as exc:
            problems.append(str(exc))
            continue
        found, bad = parse_curated(df)
        problems.extend(bad)
        for op, entry in found.items():
            if op in entries:
                problems.append(f"{entry.where}: entry {op!r} is also defined at {entries[op].where}; keep one")
            else:
                entries[op] = entry
    return CuratedData(entries, curated_names(), tuple(problems), checked_revisions())


def load_curated() -> dict[str, CuratedEntry]:
    """The merged curated entries by op name; raises SourceParseError (file:line) on the first bad entry."""
    data = load_curated_data()
    if data.problems:
        raise SourceParseError(data.problems[0])
    return dict(data.entries)
