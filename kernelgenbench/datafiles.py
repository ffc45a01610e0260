"""The one loader of the package's data files (kernelgenbench/data/*.yaml), keeping every key's line.

Every file is read the same way: a YAML SafeLoader that rejects duplicate keys, whose errors name the
file and line ('kernelgenbench/data/vllm_builds.yaml:7: not valid YAML: ...'), and that remembers the
line of each mapping key and list item, so a check on the values can say where a bad one is.
`check_keys` is that check for curated entries: a misspelt or missing key is an error naming file:line
and the key, never a value silently dropped.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location

DATA_PACKAGE = "kernelgenbench.data"
_DISPLAY_DIR = "kernelgenbench/data"  # how messages name a packaged file, wherever the package is installed

KeyPath = tuple[Any, ...]


@dataclass(frozen=True)
class DataFile:
    """One parsed YAML file: its plain data and the line of every key (and list item) by key path."""

    file: str
    data: Any
    lines: Mapping[KeyPath, int]

    def where(self, *path: Any) -> Location:
        """The place of the key at `path` ('ops', 'rms_norm', 'grid_map'); its nearest known ancestor's if absent."""
        for n in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:n]))
            if line is not None:
                return Location(self.file, line)
        return Location(self.file)


class _Loader(yaml.SafeLoader):
    """A SafeLoader that rejects duplicate keys (PyYAML keeps the last one silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _key_lines(loader: _Loader, node: yaml.Node, path: KeyPath, out: dict[KeyPath, int], seen: set[int]) -> None:
    """Record the line of every key and list item below `node` (an anchor's subtree is walked once per alias)."""
    if id(node) in seen:  # an alias of a node being walked: a cycle
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            out.setdefault((*path, key), key_node.start_mark.line + 1)
            _key_lines(loader, value_node, (*path, key), out, seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out.setdefault((*path, i), item.start_mark.line + 1)
            _key_lines(loader, item, (*path, i), out, seen)
    seen.discard(id(node))


def parse_yaml(text: str, file: str) -> DataFile:
    """Parse YAML text read from `file`; SourceParseError 'file:line: not valid YAML: ...' when it is not."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
        lines: dict[KeyPath, int] = {(): 1}
        if node is not None:
            _key_lines(loader, node, (), lines, set())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(x for x in (exc.context, exc.problem) if x) or str(exc)
        raise SourceParseError(f"not valid YAML: {problem}",
                               at=Location(file, mark.line + 1 if mark else None)) from None
    except yaml.YAMLError as exc:
        raise SourceParseError(f"not valid YAML: {exc}", at=Location(file)) from None
    finally:
        loader.dispose()
    return DataFile(file, data, lines)


def read_yaml(path: Path) -> DataFile:
    """A YAML file on disk, parsed as the packaged ones are."""
    return parse_yaml(path.read_text(encoding="utf-8"), str(path))


@functools.cache
def load_data_file(name: str) -> DataFile:
    """kernelgenbench/data/<name>, parsed once per process (treat its `data` as read-only)."""
    text = (resources.files(DATA_PACKAGE) / name).read_text(encoding="utf-8")
    return parse_yaml(text, f"{_DISPLAY_DIR}/{name}")


def load_data_copy(name: str, *, top: type | None = None) -> DataFile:
    """kernelgenbench/data/<name> with a private copy of its data (key lines kept); with `top`, its top level
    must be of that type."""
    df = load_data_file(name)
    if top is not None and not isinstance(df.data, top):
        raise SourceParseError(f"expected a {'mapping' if top is dict else top.__name__} at the top level",
                               at=Location(df.file, 1))
    return DataFile(df.file, copy.deepcopy(df.data), df.lines)


def load_data(name: str, *, top: type | None = None) -> Any:
    """A private copy of kernelgenbench/data/<name>'s data; with `top`, its top level must be of that type."""
    return load_data_copy(name, top=top).data


def data_text(name: str) -> str:
    """The raw text of a packaged data file (templates, JSON)."""
    return (resources.files(DATA_PACKAGE) / name).read_text(encoding="utf-8")


def check_keys(df: DataFile, path: KeyPath, *, required: Iterable[str], optional: Iterable[str] = (),
               what: str = "entry") -> dict[str, Any]:
    """The mapping at `path` when its keys are exactly `required` plus any of `optional`.

    Otherwise SourceParseError at the offending key's line: '<file>:<line>: <what>: unknown key 'grid_mpa'
    (known: ...)', or at the entry's line: '<what>: missing schema, module'.
    """
    entry: Any = df.data
    for p in path:
        entry = entry[p]
    req, opt = tuple(required), tuple(optional)
    if not isinstance(entry, dict):
        raise SourceParseError(f"{what} is not a mapping", at=df.where(*path))
    unknown = [k for k in entry if k not in req and k not in opt]
    if unknown:
        raise SourceParseError(f"{what}: unknown key {unknown[0]!r} (known: {', '.join(req + opt)})",
                               at=df.where(*path, unknown[0]))
    missing = [k for k in req if k not in entry]
    if missing:
        raise SourceParseError(f"{what}: missing {', '.join(missing)}", at=df.where(*path))
    return entry
