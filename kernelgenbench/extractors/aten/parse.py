"""Parse native_functions.yaml into torchgen NativeFunctions, one entry at a time, keeping line numbers.

A malformed entry is reported as `file:line: what is wrong` and skipped; the rest is still parsed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from torchgen.gen import LineLoader, parse_tags_yaml_struct
from torchgen.model import Location as TorchgenLocation
from torchgen.model import NativeFunction, SchemaKind

from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location, context


@dataclass(frozen=True)
class ParsedFunction:
    """One native function overload as torchgen models it, with where it was defined."""

    func: NativeFunction
    line: int
    dispatch: tuple[str, ...]

    @property
    def qualified_name(self) -> str:
        """'add.Tensor', 'sum' (no namespace)."""
        return str(self.func.func.name)

    @property
    def base_name(self) -> str:
        """The op name with the trailing '_' of in-place ops kept: 'add_' for add_.Tensor."""
        return str(self.func.func.name.name)

    @property
    def overload(self) -> str:
        """The overload name; empty for the default overload."""
        return self.func.func.name.overload_name


@dataclass(frozen=True)
class SkippedEntry:
    """A yaml entry that could not be parsed, and why."""

    location: Location
    reason: str

    def __str__(self) -> str:
        return self.location.message(self.reason)


@dataclass(frozen=True)
class ParsedYaml:
    """Everything read from one native_functions.yaml."""

    functions: tuple[ParsedFunction, ...]
    skipped: tuple[SkippedEntry, ...]
    valid_tags: frozenset[str]
    entries: int


def _load(path: Path) -> object:
    try:
        with open(path) as f:
            return yaml.load(f, Loader=LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise SourceParseError(f"not valid YAML: {exc.problem or exc}", at=Location(str(path), line)) from None
    except (yaml.YAMLError, AssertionError) as exc:  # torchgen's loader asserts on duplicate keys
        raise SourceParseError(f"not valid YAML: {exc}", at=Location(str(path))) from None


def load_tags(path: Path) -> frozenset[str]:
    """The tag names tags.yaml declares (torchgen checks every entry has a description)."""
    es = _load(path)
    try:
        return frozenset(parse_tags_yaml_struct(es, path=str(path)))
    except (AssertionError, AttributeError, KeyError, TypeError) as exc:
        raise SourceParseError(f"malformed tags file: {_first_line(exc)}", at=Location(str(path))) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def parse_entry(e: object, path: str, valid_tags: set[str]) -> ParsedFunction:
    """One yaml entry through torchgen's own model; raises SourceParseError naming file and line."""
    line = e.get("__line__") if isinstance(e, dict) else None
    with context(Location(path, line)):
        if not isinstance(e, dict):
            raise SourceParseError(f"entry is a {type(e).__name__}, expected a mapping with 'func:'")
        if "func" not in e:
            raise SourceParseError("entry has no 'func:' key")
        try:
            func, backend = NativeFunction.from_yaml(e, TorchgenLocation(path, line or 0), valid_tags)
        except Exception as exc:  # noqa: BLE001 - torchgen asserts/raises many types; each is one bad entry
            raise SourceParseError(f"{_first_line(exc)} (in {e['func']!r})") from None
    return ParsedFunction(func, int(line or 0), tuple(sorted(str(k) for k in backend)))


def parse_native_functions(
    path: Path, tags_path: Path, *, on_entry: Callable[[], None] | None = None
) -> ParsedYaml:
    """Parse every entry of native_functions.yaml, skipping (and reporting) the malformed ones."""
    valid_tags = set(load_tags(tags_path))
    es = _load(path)
    if not isinstance(es, list):
        raise SourceParseError("expected a list of native function entries at the top level", at=Location(str(path)))
    functions: list[ParsedFunction] = []
    skipped: list[SkippedEntry] = []
    seen: dict[str, int] = {}
    for e in es:
        try:
            pf = parse_entry(e, str(path), valid_tags)
        except SourceParseError as exc:
            skipped.append(SkippedEntry(Location(str(path), exc.line), exc.reason))
        else:
            if pf.qualified_name in seen:
                skipped.append(SkippedEntry(Location(str(path), pf.line), f"duplicate overload {pf.qualified_name} "
                                                                          f"(first defined at line {seen[pf.qualified_name]})"))
            else:
                seen[pf.qualified_name] = pf.line
                functions.append(pf)
        if on_entry is not None:
            on_entry()
    return ParsedYaml(tuple(functions), tuple(skipped), frozenset(valid_tags), len(es))


@dataclass(frozen=True)
class Relations:
    """The functional / in-place / out / mutable overloads of one torchgen group (qualified names)."""

    functional: str | None
    inplace: str | None
    out: str | None
    mutable: str | None


def group_relations(functions: Sequence[ParsedFunction]) -> dict[str, Relations]:
    """Each overload's group relations, grouped the way torchgen does (by FunctionSchema.signature())."""
    groups: dict[object, dict[SchemaKind, str]] = {}
    for pf in functions:
        d = groups.setdefault(pf.func.func.signature(), {})
        # A second overload of the same kind and signature is torchgen's error; keep the first.
        d.setdefault(pf.func.func.kind(), pf.qualified_name)
    out: dict[str, Relations] = {}
    for d in groups.values():
        rel = Relations(d.get(SchemaKind.functional), d.get(SchemaKind.inplace), d.get(SchemaKind.out),
                        d.get(SchemaKind.mutable))
        for q in d.values():
            out[q] = rel
    return out
