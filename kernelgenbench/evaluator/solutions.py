"""Candidate solutions: a directory with one file per task, or a JSONL of generated candidates.

File-name rule: the task id with '/' replaced by '__' plus '.py' ('aten/add.Tensor' ->
'aten__add.Tensor.py', 'vllm/rms_norm' -> 'vllm__rms_norm.py'). A JSONL row is
{"task_id", "code", "candidate_id"?, "model"?, "method"?, "tokens"?}; rows without a candidate_id are
numbered per task in file order ('<task_id>#0', '<task_id>#1', ...), so a file read twice gives the
same ids (what --resume relies on).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelgenbench.errors import CandidateError
from kernelgenbench.locations import Location


@dataclass(frozen=True)
class Candidate:
    """One candidate kernel for one task, with its generation metadata."""

    task_id: str
    code: str
    candidate_id: str
    model: str | None = None
    method: str | None = None
    tokens: int | None = None
    origin: str = ""  # file (and line) it came from

    @property
    def code_sha256(self) -> str:
        """Identity of the code text."""
        return hashlib.sha256(self.code.encode()).hexdigest()


def task_file_name(task_id: str) -> str:
    """'aten/add.Tensor' -> 'aten__add.Tensor.py'."""
    return task_id.replace("/", "__") + ".py"


def task_id_from_file(path: Path) -> str:
    """'aten__add.Tensor.py' -> 'aten/add.Tensor'."""
    stem = path.name.removesuffix(".py")
    if "__" not in stem:
        raise CandidateError(f"{path}: file name does not follow '<source>__<name>.py' (e.g. aten__add.Tensor.py); rename it")
    source, name = stem.split("__", 1)
    return f"{source}/{name}"


def from_directory(folder: Path) -> list[Candidate]:
    """One candidate per '<source>__<name>.py' file in `folder` (sorted by name)."""
    out = []
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        tid = task_id_from_file(path)
        out.append(Candidate(task_id=tid, code=path.read_text(), candidate_id=path.name.removesuffix(".py"),
                             origin=str(path)))
    return out


def from_rows(rows: Iterable[dict[str, Any]], origin: str = "<rows>") -> list[Candidate]:
    """Candidates from generation rows ({"task_id", "code", ...}), numbering ids per task where absent."""
    out: list[Candidate] = []
    seen: dict[str, int] = {}
    ids: set[tuple[str, str]] = set()
    for i, row in enumerate(rows, 1):
        if not isinstance(row, dict) or not isinstance(row.get("task_id"), str) or not isinstance(row.get("code"), str):
            raise CandidateError(Location(origin, i).message(
                "a solution row needs string fields 'task_id' and 'code'"))
        tid = row["task_id"]
        n = seen.get(tid, 0)
        seen[tid] = n + 1
        cid = str(row.get("candidate_id") or f"{tid}#{n}")
        if (tid, cid) in ids:
            raise CandidateError(Location(origin, i).message(
                f"duplicate candidate_id {cid!r} for task {tid}; make the ids unique"))
        ids.add((tid, cid))
        tokens = row.get("tokens")
        out.append(Candidate(task_id=tid, code=row["code"], candidate_id=cid, model=row.get("model"),
                             method=row.get("method"), tokens=int(tokens) if tokens is not None else None,
                             origin=f"{origin}:{i}"))
    return out


def from_jsonl(path: Path) -> list[Candidate]:
    """Candidates from a JSONL file of generation rows."""
    rows = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CandidateError(Location(str(path), i).message(
                f"not valid JSON ({exc.msg}); fix or drop that line")) from None
    return from_rows(rows, origin=str(path))


def load_solutions(path: str | Path) -> list[Candidate]:
    """Candidates from a directory of per-task files or a JSONL file."""
    p = Path(path)
    if p.is_dir():
        return from_directory(p)
    if p.is_file():
        return from_jsonl(p)
    raise CandidateError(f"{p}: no such solutions directory or JSONL file")
