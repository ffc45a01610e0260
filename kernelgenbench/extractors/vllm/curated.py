"""The curated vLLM ops: the 50 names (vllm_curated_names.yaml) and the entries of vllm_curated_*.yaml.

Each entry says which reference implements an op at which schema, its input generator, tolerances, cost
and how its workloads come from the vLLM tests. Entries are read strictly (unknown keys, duplicate keys,
missing fields are problems naming file:line); a bad entry is reported and left out, the rest are kept.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from kernelgenbench.errors import SourceParseError

_DATA = "kernelgenbench.data"
_REQUIRED = ("schema", "module", "function", "category", "semantics", "tolerance")
_OPTIONAL = ("inputs", "cost", "description", "test", "grid_map", "fixed", "correctness", "performance", "compare")


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

    @property
    def where(self) -> str:
        """'kernelgenbench/data/<file>:<line>' of the entry."""
        return f"kernelgenbench/data/{self.file}:{self.line}"


@dataclass(frozen=True)
class CuratedData:
    """Entries by op name, the curated names with the ops they stand for, and the problems met reading them."""

    entries: Mapping[str, CuratedEntry]
    names: Mapping[str, tuple[str, ...]]
    problems: tuple[str, ...]

    def curated_name_of(self, op: str) -> str | None:
        """The curated name an op stands for, or None."""
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
    )


def curated_files() -> list[str]:
    """The vllm_curated_*.yaml files shipped in kernelgenbench/data, sorted."""
    return sorted(p.name for p in resources.files(_DATA).iterdir()
                  if p.name.startswith("vllm_curated_") and p.name.endswith(".yaml") and p.name != "vllm_curated_names.yaml")


def curated_names() -> dict[str, tuple[str, ...]]:
    """The 50 curated names and the registered ops each stands for."""
    data = _strip_lines(_load_yaml("vllm_curated_names.yaml"))
    return {name: tuple(ops or (name,)) for name, ops in data["curated"].items()}


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
    return CuratedData(entries, curated_names(), tuple(problems))


def load_curated() -> dict[str, CuratedEntry]:
    """The merged curated entries by op name; raises SourceParseError (file:line) on the first bad entry."""
    data = load_curated_data()
    if data.problems:
        raise SourceParseError(data.problems[0])
    return dict(data.entries)
