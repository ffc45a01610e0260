"""The evaluator's main loop: every candidate in its own worker, every workload over fresh rounds.

For each candidate: static checks, then a fresh worker imports it; for each workload and round the
evaluator draws inputs from a seed, poisons pure outputs, runs the reference on clones, sends the
inputs to the worker, and judges what comes back. Result rows (one per workload, one per candidate)
are appended to the results file as soon as each is known; `resume` skips candidates already there.

This module is the loop over candidates (threads over devices); the parts live beside it: config.py (how a
run is configured), results.py (result types, the results file), context.py (one run's shared state),
candidates.py (one candidate start to end) and rounds.py (one workload's rounds and timing).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator import platform as platform_mod
from kernelgenbench.evaluator.candidates import evaluate_candidate
from kernelgenbench.evaluator.config import EvalConfig, auto_workers
from kernelgenbench.evaluator.context import RunContext
from kernelgenbench.evaluator.precision import precision_policy
from kernelgenbench.evaluator.results import (
    CandidateResult,
    ResultsWriter,
    WorkloadResult,
    check_writable,
    not_in_dataset,
    open_results,
    recorded_seed,
    resolve_seed,
)
from kernelgenbench.evaluator.solutions import Candidate

# The runner's public names, wherever they live now (config, results, context, rounds, candidates).
__all__ = ["CandidateResult", "EvalConfig", "ResultsWriter", "RunContext", "WorkloadResult", "auto_workers",
           "check_writable", "evaluate_candidate", "recorded_seed", "resolve_seed", "run"]


def run(tasks: Iterable[Task], candidates: Iterable[Candidate], *, config: EvalConfig = EvalConfig(),
        out: Path | None = None, resume: bool = False, overwrite: bool = False,
        on_row: Callable[[dict[str, Any]], None] | None = None) -> list[CandidateResult]:
    """Evaluate every candidate against its task; results in candidate order (resumed ones read back).

    An existing non-empty `out` is continued with `resume`, replaced with `overwrite`, else refused."""
    by_id = {t.id: t for t in tasks}
    cands = list(candidates)
    devices = platform_mod.resolve_devices(config.device)
    if config.workers <= 0:
        config = replace(config, workers=auto_workers(devices))
    if out is not None:
        check_writable(out, resume=resume, overwrite=overwrite)
    seed, done, writer = open_results(out, resume=resume, seed=config.seed, on_row=on_row)
    config = replace(config, seed=seed)
    results: dict[int, CandidateResult] = {}
    with precision_policy(allow_tf32=False):  # references are judged in fp32 arithmetic
        _run_all(config, devices, writer, by_id, cands, done, results)
    return [results[i] for i in sorted(results)]


def _run_all(config: EvalConfig, devices: list[str], writer: ResultsWriter, by_id: dict[str, Task], cands: list[Candidate],
             done: dict[tuple[str, str], dict[str, Any]], results: dict[int, CandidateResult]) -> None:
    todo: list[tuple[int, Task, Candidate]] = []
    with tempfile.TemporaryDirectory(prefix="kgb-eval-") as tmp:
        ctx = RunContext(config, devices, writer, Path(tmp))
        for i, c in enumerate(cands):
            if (c.task_id, c.candidate_id) in done:
                results[i] = CandidateResult.from_row(done[(c.task_id, c.candidate_id)])
            elif c.task_id not in by_id:
                res = not_in_dataset(c, platform=ctx.platforms[ctx.pool.devices[0]], seed=config.seed)
                writer.write(res.to_row())
                results[i] = res
            else:
                todo.append((i, by_id[c.task_id], c))
        if config.workers <= 1:
            for i, t, c in todo:
                results[i] = evaluate_candidate(ctx, t, c)
        else:
            with ThreadPoolExecutor(max_workers=config.workers) as pool:
                futures = {i: pool.submit(evaluate_candidate, ctx, t, c) for i, t, c in todo}
                for i, f in futures.items():
                    results[i] = f.result()
