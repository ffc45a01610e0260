"""`kernelgenbench.evaluate(...)`: the evaluator as a function, with the CLI's power, for RL and agent loops.

    import kernelgenbench as kgb
    results = kgb.evaluate({"aten/add.Tensor": code}, dataset="org/kernelgenbench", config="ms")
    results[0].status, results[0].evidence, [w.status for w in results[0].workloads]

Workers never re-import the calling script, so a script needs no `if __name__ == "__main__":` guard.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.errors import CandidateError, DatasetError, KgbError
from kernelgenbench.evaluator.distributed import per_platform, run_on_ray
from kernelgenbench.evaluator.runner import CandidateResult, EvalConfig, check_writable, run
from kernelgenbench.evaluator.solutions import Candidate, from_rows, load_solutions

Solutions = str | Path | Mapping[str, str | Sequence[str]] | Iterable[Candidate | Mapping[str, Any]]


def as_candidates(solutions: Solutions) -> list[Candidate]:
    """Candidates from a path, a {task_id: code | [codes]} mapping, or a sequence of Candidates / rows."""
    if isinstance(solutions, (str, Path)):
        return load_solutions(solutions)
    if isinstance(solutions, Mapping):
        rows: list[dict[str, Any]] = []
        for tid, codes in solutions.items():
            for code in [codes] if isinstance(codes, str) else list(codes):
                rows.append({"task_id": tid, "code": code})
        return from_rows(rows, origin="<evaluate() mapping>")
    items = list(solutions)
    if all(isinstance(c, Candidate) for c in items):
        return items  # type: ignore[return-value]
    if all(isinstance(c, Mapping) for c in items):
        return from_rows([dict(c) for c in items], origin="<evaluate() rows>")  # type: ignore[arg-type]
    raise CandidateError("solutions must be a path, a {task_id: code} mapping, Candidates, or {task_id, code} rows")


def resolve_tasks(tasks: Iterable[Task | Mapping[str, Any]] | None, dataset: str | Path | None,
                  config: str | None, split: str, revision: str | None) -> list[Task]:
    """Tasks given directly (Task objects or record dicts), or loaded from a dataset / JSONL of records."""
    if tasks is not None:
        return [t if isinstance(t, Task) else Task.from_dict(t) for t in tasks]
    if dataset is None:
        raise DatasetError("give the tasks: dataset=<Hub id, dataset folder or records JSONL> or tasks=[...]")
    from kernelgenbench.dataset.load import load_tasks

    return load_tasks(dataset, config=config, split=split, revision=revision)


def _only(task_ids: Sequence[str] | None, tasks: list[Task], cands: list[Candidate]) -> tuple[list[Task], list[Candidate]]:
    """The tasks and candidates of `task_ids` (all when None); an id the tasks lack is an error."""
    if not task_ids:
        return tasks, cands
    wanted = set(task_ids)
    unknown = wanted - {t.id for t in tasks}
    if unknown:
        raise DatasetError(f"unknown task id(s) {sorted(unknown)}; check --tasks against the dataset")
    return [t for t in tasks if t.id in wanted], [c for c in cands if c.task_id in wanted]


def evaluate(
    solutions: Solutions,
    *,
    dataset: str | Path | None = None,
    config: str | None = None,
    split: str = "test",
    revision: str | None = None,
    tasks: Iterable[Task | Mapping[str, Any]] | None = None,
    task_ids: Sequence[str] | None = None,
    device: str = "auto",
    rounds: int = 3,
    seed: int | None = None,
    workers: int = 0,
    out: str | Path | None = None,
    resume: bool = False,
    overwrite: bool = False,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    call_timeout_s: float | None = None,
    memory_cap_bytes: int | None = None,
    timing: Mapping[str, Any] | None = None,
    compile_baseline: bool = False,
    ray: str | bool | None = None,
    platforms: str = "one",
) -> list[CandidateResult]:
    """Score candidate kernels on tasks; one typed result per candidate (with per-workload results).

    `seed` None draws a fresh base seed per run (each result's `seed` says which; pass it to reproduce);
    with `resume` the seed recorded in `out` is reused. An existing `out` is continued (`resume`), replaced
    (`overwrite`) or refused. `dataset` is a folder, Hub id or records JSONL; `config` None reads a JSONL's
    every record and a folder's or Hub id's default config, ms. `on_row` sees every result row as written.
    `ray` True (a local Ray instance) or a cluster address evaluates on Ray, one evaluator pool per node;
    there `platforms="all"` evaluates every candidate once per platform kind of the cluster (one result
    each, in candidate then platform order).
    """
    if out is not None:
        check_writable(Path(out), resume=resume, overwrite=overwrite)  # before any work: fail in one line
    cands = as_candidates(solutions)  # cheap, so a bad solutions path fails before the dataset is read
    all_tasks, cands = _only(task_ids, resolve_tasks(tasks, dataset, config, split, revision), cands)
    overrides: dict[str, Any] = {"device": device, "rounds": rounds, "seed": seed, "workers": workers,
                                 "compile_baseline": compile_baseline}
    # Workers never read the dataset's files, nor the solutions (other candidates' code: theirs is written
    # into their own folder).
    given_paths = [p for p in (dataset, solutions) if isinstance(p, str | os.PathLike) and Path(p).exists()]
    if given_paths:
        overrides["hidden_paths"] = tuple(str(Path(p).resolve()) for p in given_paths)
    given = {"call_timeout_s": call_timeout_s, "memory_cap_bytes": memory_cap_bytes,
             "timing": dict(timing) if timing is not None else None}
    overrides.update({k: v for k, v in given.items() if v is not None})
    out_path = Path(out) if out is not None else None
    if ray or per_platform(platforms):
        if not ray:
            raise KgbError(f"platforms={platforms!r} evaluates on every platform of a Ray cluster: add ray=True "
                           "(`kgb eval --ray [ADDRESS]`)")
        return run_on_ray(all_tasks, cands, config=EvalConfig(**overrides), out=out_path, resume=resume,
                          address=None if ray is True else str(ray), platforms=platforms, on_row=on_row)
    return run(all_tasks, cands, config=EvalConfig(**overrides), out=out_path, resume=resume, overwrite=overwrite,
               on_row=on_row)
