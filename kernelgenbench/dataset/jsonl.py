"""Read task records from JSON Lines files (or folders of them), keeping where each came from."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelgenbench.errors import SourceNotFound
from kernelgenbench.locations import Location


@dataclass(frozen=True)
class LocatedRecord:
    """A record and the file and line it was read from."""

    record: dict[str, Any]
    file: str
    line: int

    @property
    def location(self) -> Location:
        """Where the record was read."""
        return Location(self.file, self.line)

    @property
    def where(self) -> str:
        """`file:line`, for messages."""
        return str(self.location)


@dataclass(frozen=True)
class JsonlRead:
    """The records read, and one line per line that was not a JSON object."""

    records: tuple[LocatedRecord, ...]
    problems: tuple[str, ...]


def jsonl_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, with each folder expanded to the `*.jsonl` files under it (sorted)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*.jsonl") if f.is_file())
            if not found:
                raise SourceNotFound(f"{p}: folder holds no *.jsonl files; pass the record files of `kgb-extract`")
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            raise SourceNotFound(f"{p}: no such file or folder; pass JSON Lines files of task records")
    return files


def read_jsonl(paths: Iterable[str | Path]) -> JsonlRead:
    """Every record in the files (blank lines skipped); a line that is not a JSON object becomes a problem."""
    records: list[LocatedRecord] = []
    problems: list[str] = []
    for path in jsonl_files(paths):
        with path.open(encoding="utf-8") as fh:
            for lineno, text in enumerate(fh, start=1):
                if not text.strip():
                    continue
                try:
                    value = json.loads(text)
                except json.JSONDecodeError as exc:
                    problems.append(Location(str(path), lineno).message(
                        f"not JSON ({exc.msg} at column {exc.colno}); fix or drop the line"))
                    continue
                if not isinstance(value, dict):
                    problems.append(Location(str(path), lineno).message(
                        f"a record must be a JSON object, got {type(value).__name__}"))
                    continue
                records.append(LocatedRecord(value, str(path), lineno))
    return JsonlRead(tuple(records), tuple(problems))
