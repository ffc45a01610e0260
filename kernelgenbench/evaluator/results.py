"""What a run produces and where it goes: the result types, the append-only results file (resume, seeds), and
the readings of a result row that the runners, the summary and the report share (source, headline time, SOL)."""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.solutions import Candidate
from kernelgenbench.evaluator.status import Status


@dataclass(frozen=True)
class WorkloadResult:
    """The verdict on one workload of one candidate."""

    task_id: str
    candidate_id: str
    workload_id: str
    purpose: str
    status: Status
    evidence: str = ""
    rounds: int = 0
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    log_excerpt: str = ""
    timing: dict[str, Any] | None = None
    baselines: dict[str, Any] | None = None
    sol: dict[str, Any] | None = None
    isolation: str | None = None  # the worker's isolation level (sandbox/isolation.py); None: no worker ran
    kernels: list[dict[str, Any]] | None = None  # device kernels of the last call (the profiler's), where recorded

    def to_row(self, platform: dict[str, Any]) -> dict[str, Any]:
        """The JSON line for this workload."""
        return {"kind": "workload", "task_id": self.task_id, "candidate_id": self.candidate_id,
                "workload_id": self.workload_id, "purpose": self.purpose, "status": self.status.value,
                "evidence": self.evidence, "rounds": self.rounds, "max_abs_err": self.max_abs_err,
                "max_rel_err": self.max_rel_err, "log_excerpt": self.log_excerpt, "timing": self.timing,
                "baselines": self.baselines, "sol": self.sol, "platform": platform, "isolation": self.isolation,
                "kernels": self.kernels}


@dataclass(frozen=True)
class CandidateResult:
    """The verdict on one candidate: its first failing workload's status, else passed."""

    task_id: str
    candidate_id: str
    source: str
    status: Status
    evidence: str = ""
    workloads: tuple[WorkloadResult, ...] = ()
    category: str = ""
    model: str | None = None
    method: str | None = None
    tokens: int | None = None
    code_sha256: str = ""
    elapsed_s: float = 0.0
    log_excerpt: str = ""
    platform: dict[str, Any] = field(default_factory=dict)
    phases_s: dict[str, float] = field(default_factory=dict)  # where elapsed_s went: start, check, time, ...
    seed: int | None = None  # the run's base seed (`kgb eval --seed` reproduces the run)
    isolation: str | None = None  # the worker's isolation level (sandbox/isolation.py); None: no worker ran

    @property
    def passed(self) -> bool:
        """True when every workload that ran passed."""
        return self.status is Status.PASSED

    def to_row(self) -> dict[str, Any]:
        """The JSON line for this candidate."""
        return {"kind": "task", "task_id": self.task_id, "candidate_id": self.candidate_id, "source": self.source,
                "category": self.category,
                "status": self.status.value, "evidence": self.evidence,
                "workloads_run": sum(w.status is not Status.SKIPPED for w in self.workloads),
                "workloads_passed": sum(w.status is Status.PASSED for w in self.workloads),
                "model": self.model, "method": self.method, "tokens": self.tokens, "code_sha256": self.code_sha256,
                "elapsed_s": round(self.elapsed_s, 3), "phases_s": {k: round(v, 3) for k, v in self.phases_s.items()},
                "log_excerpt": self.log_excerpt, "platform": self.platform, "seed": self.seed,
                "isolation": self.isolation}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> CandidateResult:
        """A result read back from a results file (its workload rows are not attached)."""
        return cls(task_id=row["task_id"], candidate_id=row["candidate_id"], source=row.get("source", ""),
                   category=row.get("category", ""),
                   status=Status(row["status"]), evidence=row.get("evidence", ""), model=row.get("model"),
                   method=row.get("method"), tokens=row.get("tokens"), code_sha256=row.get("code_sha256", ""),
                   elapsed_s=float(row.get("elapsed_s") or 0.0), log_excerpt=row.get("log_excerpt", ""),
                   platform=row.get("platform") or {}, phases_s=dict(row.get("phases_s") or {}),
                   seed=row.get("seed"), isolation=row.get("isolation"))


def row_source(row: Mapping[str, Any]) -> str:
    """A result row's source: its `source`, else the task id's prefix ('aten' of 'aten/add.Tensor')."""
    return row.get("source") or row["task_id"].split("/", 1)[0]


def headline_us(timing: Mapping[str, Any] | None) -> float | None:
    """A timing's headline in µs (None when unavailable); timings written before `time_us` existed (results
    files, cached baselines) carry it as `median_us`."""
    if not timing or not timing.get("available"):
        return None
    t = timing.get("time_us", timing.get("median_us"))
    return float(t) if t is not None else None


def sol_fraction(floor: float | None, time_us: float | None) -> float | None:
    """Fraction of speed of light reached: floor time over measured time (1.0 is the physical limit)."""
    if not floor or not time_us:
        return None
    return floor / time_us


def judged_fields(task: Task, cand: Candidate, *, platform: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """The CandidateResult fields that say which candidate of which task was judged, where, with which seed."""
    return {"task_id": task.id, "candidate_id": cand.candidate_id, "source": task.source, "category": task.category,
            "model": cand.model, "method": cand.method, "tokens": cand.tokens, "code_sha256": cand.code_sha256,
            "platform": platform, "seed": seed}


def not_in_dataset(cand: Candidate, *, platform: dict[str, Any], seed: int | None) -> CandidateResult:
    """The result of a candidate whose task the dataset (or the chosen config) lacks: no verdict, not counted."""
    return CandidateResult(task_id=cand.task_id, candidate_id=cand.candidate_id, source=cand.task_id.split("/")[0],
                           status=Status.NOT_IN_DATASET,
                           evidence="the task is not in the dataset (or not in the chosen config): not judged, "
                                    "not counted",
                           model=cand.model, method=cand.method, tokens=cand.tokens, platform=platform, seed=seed)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a results file; a torn last line (a run killed mid-write) is ignored."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def recorded_seed(rows: Iterable[dict[str, Any]]) -> int | None:
    """The base seed a results file was written with, or None when its rows carry none."""
    seeds = {r["seed"] for r in rows if r.get("seed") is not None}
    if len(seeds) > 1:
        raise KgbError(f"the results file mixes runs of several seeds {sorted(seeds)}; resume needs one")
    return next(iter(seeds), None)


def resolve_seed(seed: int | None, out: Path | None, resume: bool) -> int:
    """The run's base seed: the one asked for; on resume the one the file records; else a fresh random one."""
    rows = read_rows(out) if (resume and out is not None) else []
    recorded = recorded_seed(rows)
    if recorded is None and rows:
        recorded = 0  # a file written before seeds were recorded was written with the then default, 0
    if seed is not None and recorded is not None and seed != recorded:
        raise KgbError(f"--seed {seed} differs from the seed {recorded} that {out} was written with; "
                       "resume with that seed (or none) or write a new file")
    if seed is not None:
        return seed
    return recorded if recorded is not None else secrets.randbits(31)


Key = tuple[str, ...]  # a candidate row's identity for --resume (see `resume_key`)


def platform_kind(platform: Mapping[str, Any] | None) -> str:
    """A platform's kind, the vendor of its device: nvidia, amd, intel, cpu (Triton's interpreter), ..."""
    return str((platform or {}).get("vendor") or "cpu")


def resume_key(row: Mapping[str, Any], by_platform: bool) -> Key:
    """A candidate row's identity for --resume: (task, candidate), plus the platform kind when by platform."""
    key: Key = (row["task_id"], row["candidate_id"])
    return (*key, platform_kind(row.get("platform"))) if by_platform else key


def finished(path: Path, by_platform: bool = False) -> dict[Key, dict[str, Any]]:
    """Candidate rows already in a results file, by their resume key."""
    return {resume_key(r, by_platform): r for r in read_rows(path) if r.get("kind") == "task"}


def drop_torn_tail(path: Path) -> None:
    """Cut a torn last line (a run killed mid-write) off the file, so an appended row never follows it."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def check_writable(out: Path, *, resume: bool, overwrite: bool) -> None:
    """Refuse, before any work, a results file that cannot be written or would silently replace another."""
    if out.is_dir():
        raise KgbError(f"results file {out} is a folder; pass a file path to --out")
    if out.exists() and out.stat().st_size and not (resume or overwrite):
        raise KgbError(f"results file {out} already exists; pass --resume to continue it, --overwrite to "
                       "replace it, or another --out")
    probe = out if out.exists() else next((p for p in out.parents if p.exists()), Path("."))
    if probe != out and not probe.is_dir():
        raise KgbError(f"results file {out} cannot be written ({probe} is not a folder); pick another --out")
    if not os.access(probe, os.W_OK):
        raise KgbError(f"results file {out} cannot be written ({probe} is not writable); pick another --out")


class ResultsWriter:
    """Appends JSON lines, one at a time, flushed at once (threads share one writer)."""

    def __init__(self, path: Path | None, on_row: Callable[[dict[str, Any]], None] | None = None,
                 seed: int | None = None) -> None:
        self.path = path
        self.on_row = on_row
        self.seed = seed  # stamped on every row, so any row says how to reproduce its inputs
        self._lock = threading.Lock()
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with self._open():  # created now, so workers' mount namespaces can cover it from the start
                    pass
                drop_torn_tail(path)
            except OSError as exc:
                raise KgbError(f"results file {path} cannot be written ({exc.strerror or exc}); "
                               "pick another --out") from None

    def _open(self) -> Any:
        """The results file for appending, readable and writable by the evaluator's uid only."""
        assert self.path is not None
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        if os.fstat(fd).st_uid == os.geteuid():
            os.fchmod(fd, 0o600)  # a file from an earlier run, made with looser modes
        f = os.fdopen(fd, "a")
        f.seek(0, os.SEEK_END)
        return f

    def write(self, row: dict[str, Any]) -> None:
        """Append one row."""
        if self.seed is not None:
            row = {**row, "seed": self.seed}
        with self._lock:
            if self.path is not None:
                with self._open() as f:
                    f.write(json.dumps(row, default=str, allow_nan=True) + "\n")
                    f.flush()
            if self.on_row is not None:
                self.on_row(row)


def open_results(out: Path | None, *, resume: bool, seed: int | None, on_row: Callable[[dict[str, Any]], None] | None,
                 by_platform: bool = False) -> tuple[int, dict[Key, dict[str, Any]], ResultsWriter]:
    """A run's start on its results file: the base seed (`resolve_seed`), the candidate rows a resumed file
    already holds (by resume key), and the writer; without `resume` an existing file is replaced."""
    seed = resolve_seed(seed, out, resume)
    done = finished(out, by_platform) if (resume and out is not None) else {}
    if out is not None and not resume and out.exists():
        out.unlink()  # callers refuse to replace a file unless asked (check_writable)
    return seed, done, ResultsWriter(out, on_row, seed=seed)
