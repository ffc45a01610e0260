"""The curated vLLM ops: the 50 names (vllm_curated_names.yaml) and the entries of vllm_curated_*.yaml.

Each entry says which reference implements an op at which schema, its input generator, tolerances, cost
and how its workloads come from the vLLM tests. Entries are read strictly (unknown keys, duplicate keys,
missing fields are problems naming file:line); a bad entry is reported and left out, the rest are kept.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml
from packaging.version import InvalidVersion, Version

from kernelgenbench.errors import SourceParseError

_DATA = "kernelgenbench.data"
_REQUIRED = ("schema", "module", "function", "category", "semantics", "tolerance")
_OPTIONAL = ("inputs", "cost", "description", "test", "grid_map", "fixed", "correctness", "performance",
             "compare", "revisions", "removed")
_REVISION_KEYS = ("since", "name", "schema", "function", "inputs", "fixed", "description")


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


class _LineLoader(yaml.SafeLoader):
    """A SafeLoader that rejects duplicate keys and remembers the line of each mapping key."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        mapping = super().construct_mapping(node, deep=deep)
        mapping["__lines__"] = {self.construct_object(k, deep=deep): k.start_mark.line + 1 for k, _ in node.value}
        return mapping


def _strip_lines(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_lines(v) for k, v in value.items() if k != "__lines__"}
    if isinstance(value, list):
        return [_strip_lines(v) for v in value]
    return value


def _load_yaml(name: str) -> dict[str, Any]:
    text = (resources.files(_DATA) / name).read_text(encoding="utf-8")
    try:
        data = yaml.load(text, Loader=_LineLoader)  # noqa: S506 - _LineLoader is a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SourceParseError(f"bad YAML: {getattr(exc, 'problem', exc)}", file=f"kernelgenbench/data/{name}",
                               line=mark.line + 1 if mark else None) from None
    if not isinstance(data, dict):
        raise SourceParseError("expected a mapping at the top", file=f"kernelgenbench/data/{name}", line=1)
    return data


def module_source(module: str) -> str:
    """The text of a kernelgenbench module, read as package data (the module is not imported)."""
    package, _, leaf = module.rpartition(".")
    try:
        return (resources.files(package) / f"{leaf}.py").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        raise SourceParseError(f"module {module} not found") from None


@functools.cache
def _defined_functions(module: str) -> frozenset[str]:
    return frozenset(n.name for n in ast.parse(module_source(module)).body if isinstance(n, ast.FunctionDef))


def _entry(op: str, raw: dict[str, Any], file: str, line: int) -> CuratedEntry:
    if not isinstance(raw, dict):
        raise SourceParseError(f"entry {op!r} is not a mapping", file=f"kernelgenbench/data/{file}", line=line)
    lines = raw.get("__lines__", {})
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL) - {"__lines__"})
    if unknown:
        k = unknown[0]
        raise SourceParseError(f"entry {op!r}: unknown key {k!r} (known: {', '.join(_REQUIRED + _OPTIONAL)})",
                               file=f"kernelgenbench/data/{file}", line=lines.get(k, line))
    missing = [k for k in _REQUIRED if k not in raw]
    if missing:
        raise SourceParseError(f"entry {op!r}: missing {', '.join(missing)}", file=f"kernelgenbench/data/{file}",
                               line=line)
    raw = _strip_lines(raw)
    if not str(raw["schema"]).startswith(f"{op}("):
        raise SourceParseError(f"entry {op!r}: schema must start with '{op}('", file=f"kernelgenbench/data/{file}",
                               line=lines.get("schema", line))
    try:
        defined = _defined_functions(raw["module"])
    except SyntaxError as exc:
        raise SourceParseError(f"entry {op!r}: module {raw['module']} does not parse ({exc.msg})",
                               file=f"kernelgenbench/data/{file}", line=lines.get("module", line)) from None
    for key in ("function", "inputs"):
        if raw.get(key) and raw[key] not in defined:
            raise SourceParseError(f"entry {op!r}: {raw['module']} defines no function {raw[key]!r}",
                                   file=f"kernelgenbench/data/{file}", line=lines.get(key, line))
    where = f"kernelgenbench/data/{file}"
    revisions = tuple(_revision(op, r, defined, raw["module"], where, lines.get("revisions", line))
                      for r in raw.get("revisions") or ())
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


def _revision(op: str, raw: Any, defined: frozenset[str], module: str, where: str, line: int) -> SchemaRevision:
    """One item of an entry's `revisions`, read strictly."""
    if not isinstance(raw, dict) or set(raw) - set(_REVISION_KEYS) or not {"since", "schema", "function"} <= set(raw):
        raise SourceParseError(f"entry {op!r}: each revision is a mapping with since, schema, function "
                               f"(and optionally name, inputs, fixed); got {raw!r}", file=where, line=line)
    name = str(raw.get("name") or op)
    if not str(raw["schema"]).startswith(f"{name}("):
        raise SourceParseError(f"entry {op!r}: revision schema must start with '{name}('", file=where, line=line)
    for key in ("function", "inputs"):
        if raw.get(key) and raw[key] not in defined:
            raise SourceParseError(f"entry {op!r}: {module} defines no function {raw[key]!r}", file=where, line=line)
    return SchemaRevision(since=str(raw["since"]), name=raw.get("name"), schema=str(raw["schema"]), function=raw["function"],
                          inputs=raw.get("inputs"), fixed=raw.get("fixed") or {},
                          description=" ".join(str(raw.get("description") or "").split()))


def curated_files() -> list[str]:
    """The vllm_curated_*.yaml files shipped in kernelgenbench/data, sorted."""
    return sorted(p.name for p in resources.files(_DATA).iterdir()
                  if p.name.startswith("vllm_curated_") and p.name.endswith(".yaml") and p.name != "vllm_curated_names.yaml")


def curated_names() -> dict[str, tuple[str, ...]]:
    """The 50 curated names and the registered ops each stands for."""
    data = _strip_lines(_load_yaml("vllm_curated_names.yaml"))
    return {name: tuple(ops or (name,)) for name, ops in data["curated"].items()}


def checked_revisions() -> tuple[str, ...]:
    """The vLLM releases the curated references were checked against, oldest first."""
    data = _strip_lines(_load_yaml("vllm_curated_names.yaml"))
    return tuple(sorted((str(v) for v in data.get("checked_revisions") or ()), key=Version))


def load_curated_data() -> CuratedData:
    """Every curated entry that reads cleanly, the curated names, and one problem line per bad entry."""
    entries: dict[str, CuratedEntry] = {}
    problems: list[str] = []
    for file in curated_files():
        try:
            data = _load_yaml(file)
        except SourceParseError as exc:
            problems.append(str(exc))
            continue
        ops = data.get("ops") or {}
        lines = ops.get("__lines__", {}) if isinstance(ops, dict) else {}
        for op, raw in (ops.items() if isinstance(ops, dict) else ()):
            if op == "__lines__":
                continue
            line = lines.get(op, 1)
            if op in entries:
                problems.append(f"kernelgenbench/data/{file}:{line}: entry {op!r} is also defined at "
                                f"{entries[op].where}; keep one")
                continue
            try:
                entries[op] = _entry(op, raw, file, line)
            except SourceParseError as exc:
                problems.append(str(exc))
    return CuratedData(entries, curated_names(), tuple(problems), checked_revisions())


def load_curated() -> dict[str, CuratedEntry]:
    """The merged curated entries by op name; raises SourceParseError (file:line) on the first bad entry."""
    data = load_curated_data()
    if data.problems:
        raise SourceParseError(data.problems[0])
    return dict(data.entries)
