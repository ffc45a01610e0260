"""One candidate, start to end: static checks, its own worker on the least busy device, every workload in
order, and its result row; an evaluator failure on it becomes its result, never the run's end.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.exception import classify_exception
from kernelgenbench.evaluator.config import on_cpu
from kernelgenbench.evaluator.context import CPU_TIMING, RunContext
from kernelgenbench.evaluator.results import CandidateResult, WorkloadResult, judged_fields
from kernelgenbench.evaluator.rounds import no_reply_status, phase, run_workload, trace_tail
from kernelgenbench.evaluator.solutions import Candidate
from kernelgenbench.evaluator.static_checks import check_source
from kernelgenbench.evaluator.status import Status, Verdict
from kernelgenbench.evaluator.supervisor import Reply, Worker
from kernelgenbench.sandbox import isolation
from kernelgenbench.sandbox.protocol import Raised, Ready


def evaluate_candidate(ctx: RunContext, task: Task, cand: Candidate) -> CandidateResult:
    """All workloads of one candidate, in its own worker on the least busy device; rows written as known.

    Never raises (but for interrupts): an exception of the evaluator's own while this candidate is judged
    becomes its result, status evaluator_error with the traceback, and the run goes on with the next one.
    """
    t0 = time.perf_counter()
    try:
        with ctx.pool.checkout() as device:
            return _evaluate_on(ctx, task, cand, device)
    except Exception:  # noqa: BLE001 - one candidate must never stop the run
        # seed None as before: the writer stamps the run's seed on the row
        res = CandidateResult(**judged_fields(task, cand, platform=ctx.platforms.get(ctx.pool.devices[0], {}), seed=None),
                              status=Status.EVALUATOR_ERROR,
                              evidence="the evaluator failed on this candidate (not a verdict on the candidate):\n"
                                       + trace_tail(),
                              elapsed_s=time.perf_counter() - t0)
        ctx.writer.write(res.to_row())
        return res


def _evaluate_on(ctx: RunContext, task: Task, cand: Candidate, device: str) -> CandidateResult:
    t0 = time.perf_counter()
    phases: dict[str, float] = {}
    platform = ctx.platforms[device]
    meta = judged_fields(task, cand, platform=platform, seed=ctx.config.seed)

    def finish(status: Status, evidence: str, workloads: Sequence[WorkloadResult] = (), log: str = "",
               level: str | None = None) -> CandidateResult:
        res = CandidateResult(**meta, status=status, evidence=evidence, workloads=tuple(workloads),
                              elapsed_s=time.perf_counter() - t0, log_excerpt=log, phases_s=phases, isolation=level)
        ctx.writer.write(res.to_row())
        return res

    if task.reference is None:
        return finish(Status.NO_REFERENCE, "the task record has no reference; it cannot be judged")
    static = check_source(cand.code, filename=cand.origin or f"{cand.candidate_id}.py")
    if not static.passed:
        return finish(static.status, static.evidence)
    tag = hashlib.sha256(f"{cand.task_id}\0{cand.candidate_id}".encode()).hexdigest()[:16]
    home = ctx.workdir / f"kgb_candidate_{tag}"  # the candidate's own folder: its code, caches, temp files
    with ctx.worker_uid() as uid:
        try:
            isolation.prepare_dir(str(home), uid, uid)
            code_path = home / "candidate.py"
            code_path.write_text(cand.code)
            setup = {"code_path": str(code_path), "log_path": str(ctx.workdir / f"kgb_candidate_{tag}.log"),
                     "entry_point": task.entry_point, "device": device, "record": task.to_dict(),
                     "memory_cap_bytes": ctx.config.memory_cap_bytes, "device_memory_fraction": ctx.memory_fraction(),
                     "compile_allowance_s": ctx.config.compile_allowance_s,
                     "isolation": {"workdir": str(home), "uid": uid, "gid": uid, "hide": ctx.hidden,
                                   "reveal": ctx.reveal}}
            return _run_worker(ctx, task, cand, device, setup, phases, finish)
        finally:
            shutil.rmtree(home, ignore_errors=True)  # nothing of it is left for the slot's next candidate


def _run_worker(ctx: RunContext, task: Task, cand: Candidate, device: str, setup: dict[str, Any],
                phases: dict[str, float], finish: Callable[..., CandidateResult]) -> CandidateResult:
    """The candidate's worker: import, then every workload; `finish` writes the candidate's row."""
    platform = ctx.platforms[device]
    results: list[WorkloadResult] = []
    with ctx.pool.locks[device].shared(), phase(phases, "start"):  # a candidate may launch kernels at import
        worker = Worker(setup, start_method=ctx.config.start_method)
        ready = worker.receive(ctx.config.import_timeout_s)
    try:
        level = worker.isolation_level
        v = _import_verdict(ready, task.entry_point)
        if not v.passed:
            return finish(v.status, v.evidence, log=ready.log_tail or worker.log_tail(), level=level)
        order = sorted(task.workloads, key=lambda w: w.purpose != "correctness")
        dead: tuple[Status, str] | None = None
        for w in order:
            base = {"task_id": task.id, "candidate_id": cand.candidate_id, "workload_id": w.id, "purpose": w.purpose,
                    "isolation": level}
            if w.purpose == "performance" and on_cpu(device):
                res = WorkloadResult(**base, status=Status.SKIPPED, timing=dict(CPU_TIMING),
                                     evidence="performance workload: not run on CPU (Triton interpreter)")
            elif dead is not None:
                res = WorkloadResult(**base, status=dead[0], evidence=dead[1])
                dead = (Status.SKIPPED, dead[1])  # the first one left unrun carries the verdict
            else:
                res = replace(run_workload(ctx, task, cand, w, worker, device, phases), isolation=level)
                if not worker.alive:
                    dead = _left_unrun(w.id, res.status, worker)
            results.append(res)
            ctx.writer.write(res.to_row(platform))
        failed = next((r for r in results if r.status not in (Status.PASSED, Status.SKIPPED)), None)
        if failed is not None:
            return finish(failed.status, f"workload {failed.workload_id}: {failed.evidence}", results,
                          failed.log_excerpt, level)
        if not any(r.status is Status.PASSED for r in results):
            return finish(Status.SKIPPED, "no workload of this task can run on this device", results, level=level)
        return finish(Status.PASSED, "", results, level=level)
    finally:
        worker.close()


def _left_unrun(workload_id: str, status: Status, worker: Worker) -> tuple[Status, str]:
    """The status and evidence of the next workload to run after the worker is gone following `workload_id`.

    Its death is a crash of the candidate's process whatever caused it: a workload it did not run was not
    passed, so the first one left unrun is CRASHED (the candidate cannot pass) unless the workload it died
    on has failed already, which then carries the verdict."""
    gone = f"not run: the worker was gone after workload {workload_id} ({status.value}; {worker.exit_description})"
    return (Status.SKIPPED if status not in (Status.PASSED, Status.SKIPPED) else Status.CRASHED), gone


def _import_verdict(reply: Reply, entry_point: str = "") -> Verdict:
    m = reply.message
    if isinstance(m, Raised):
        status = classify_exception(m.exc_type, m.message, at_import=True)
        return Verdict(status, f"{m.exc_type}: {m.message}\n{m.traceback}".strip())
    if not isinstance(m, Ready):
        return Verdict(no_reply_status(reply), f"while importing the candidate: {reply.evidence}")
    if m.tampering:
        return Verdict(Status.TAMPERING, "at import: " + "; ".join(m.tampering))
    if not m.entry_point_found:
        return Verdict(Status.MISSING_ENTRY_POINT,
                       f"the candidate does not define the task's entry point: a function named {entry_point!r}")
    return Verdict(Status.PASSED)
