"""The evaluator's main loop: every candidate in its own worker, every workload over fresh rounds.

For each candidate: static checks, then a fresh worker imports it; for each workload and round the
evaluator draws inputs from a seed, poisons pure outputs, runs the reference on clones, sends the
inputs to the worker, and judges what comes back. Result rows (one per workload, one per candidate)
are appended to the results file as soon as each is known; `resume` skips candidates already there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from kernelgenbench.dataset.record import Task, Workload
from kernelgenbench.errors import DatasetError, KgbError
from kernelgenbench.evaluator import platform as platform_mod
from kernelgenbench.evaluator.checks.exception import classify_exception
from kernelgenbench.evaluator.cost import written_outputs
from kernelgenbench.evaluator.devices import DevicePool
from kernelgenbench.evaluator.inputs import load_code, round_inputs, split_call_args
from kernelgenbench.evaluator.judge import judge_call
from kernelgenbench.evaluator.precision import precision_policy
from kernelgenbench.evaluator.sol import check_floor
from kernelgenbench.evaluator.solutions import Candidate
from kernelgenbench.evaluator.static_checks import check_source
from kernelgenbench.evaluator.status import Status, Verdict
from kernelgenbench.evaluator.supervisor import NO_REPLY, Reply, Worker
from kernelgenbench.evaluator.timing import TimingConfig
from kernelgenbench.evaluator.transfer import clone_tree, fingerprint, move_tree
from kernelgenbench.sandbox import isolation
from kernelgenbench.sandbox.protocol import Raised, Ready, TimeReport

CPU_TIMING = {"available": False, "reason": "no accelerator: correctness only (Triton interpreter)"}
INTERPRETER_CAVEATS = (
    "Triton's interpreter computes bf16 arithmetic wrongly: a kernel that computes in bf16 (instead of "
    "loading bf16 and converting to fp32) can fail here and pass on a GPU",
    "autotune with several configs does not run in the interpreter: use one fixed config on CPU",
    "performance workloads are not run on CPU",
)


@dataclass(frozen=True)
class EvalConfig:
    """How to evaluate: device, rounds, seeds, isolation limits and timing."""

    device: str = "auto"
    rounds: int = 3  # fresh-input rounds of every correctness workload
    performance_rounds: int = 1  # checked rounds of a performance workload before it is timed
    # None: a fresh base seed drawn for each run (recorded in every result row; pass it back to reproduce).
    # A fixed public default would let a candidate precompute every round's inputs and answers at import.
    seed: int | None = None
    import_timeout_s: float = 180.0
    call_timeout_s: float = 120.0
    timing_timeout_s: float = 600.0
    memory_cap_bytes: int = 8 << 30  # host address space per worker on CPU
    device_memory_fraction: float | None = None  # per worker on an accelerator; default 0.9 / workers
    # 0: automatic, as in evaluate() and `kgb eval` (two per device on accelerators, capped by the CPU count;
    # one on CPU)
    workers: int = 0
    start_method: str = "forkserver"
    time_performance: bool = True
    timing: dict[str, Any] = field(default_factory=dict)  # TimingConfig overrides (candidate and baselines alike)
    compile_baseline: bool = False  # also time torch.compile of the reference
    # Run as root, worker slot i runs its candidates as uid/gid worker_uid_base + i (see sandbox/isolation.py).
    worker_uid_base: int = 64100
    hidden_paths: tuple[str, ...] = ()  # covered in every worker's mount namespace (the dataset's files)


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


def seed_for(base: int, *parts: object) -> int:
    """A stable 31-bit seed for one round of one workload."""
    digest = hashlib.sha256(":".join(str(p) for p in (base, *parts)).encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


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


def finished(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Candidate rows already in a results file, by (task_id, candidate_id)."""
    return {(r["task_id"], r["candidate_id"]): r for r in read_rows(path) if r.get("kind") == "task"}


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


def interpreter_note(verdict: Verdict, args: dict[str, Any]) -> str:
    """Where Triton's interpreter may be the cause of a failure, say so beside the evidence."""
    text = verdict.evidence.lower()
    if verdict.status in (Status.RUNTIME_ERROR, Status.COMPILE_ERROR) and ("autotun" in text or "do_bench" in text):
        return f"\n[interpreter] {INTERPRETER_CAVEATS[1]}"
    tensors = [t for v in args.values() for t in (v if isinstance(v, list) else [v]) if isinstance(t, torch.Tensor)]
    if verdict.status is Status.INCORRECT_NUMERICS and any(t.dtype == torch.bfloat16 for t in tensors):
        return f"\n[interpreter] {INTERPRETER_CAVEATS[0]}"
    return ""


@contextlib.contextmanager
def _phase(phases: dict[str, float], name: str) -> Iterator[None]:
    """Add the block's wall time to phases[name] (the evaluator's own cost, reported per candidate)."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        _add_phase(phases, name, time.perf_counter() - t0)


def _add_phase(phases: dict[str, float], name: str, seconds: Any) -> None:
    """Add seconds measured elsewhere (a worker's header value; None counts as 0) to phases[name]."""
    phases[name] = phases.get(name, 0.0) + float(seconds or 0.0)


def _platform_row(device: str) -> dict[str, Any]:
    info = platform_mod.detect(device).to_dict()
    info["precision"] = {"reference_tf32": False}
    if info["interpreter"]:
        info["caveats"] = list(INTERPRETER_CAVEATS)
    return info


def _on_cpu(device: str) -> bool:
    return torch.device(device).type == "cpu"


class _Context:
    """Shared state of one run: config, devices and their locks, platforms, writer, reference cache."""

    def __init__(self, config: EvalConfig, devices: Sequence[str], writer: ResultsWriter, workdir: Path) -> None:
        self.config = config
        self.pool = DevicePool(devices)
        self.writer = writer
        self.workdir = workdir
        self.platforms = {d: _platform_row(d) for d in self.pool.devices}
        self._refs: dict[str, Any] = {}
        self._ref_lock = threading.Lock()
        os.chmod(workdir, 0o711)  # workers may reach their own folder inside, not list the others
        self.hidden = _coverable([*config.hidden_paths, *([writer.path] if writer.path else [])], workdir)
        self._uids, self.reveal = _worker_uids(config)
        self._uid_lock = threading.Lock()

    @contextlib.contextmanager
    def worker_uid(self) -> Iterator[int | None]:
        """A worker slot's uid for one candidate (None: workers keep the evaluator's uid)."""
        if not self._uids:
            yield None
            return
        with self._uid_lock:
            uid = self._uids.pop()
        try:
            yield uid
        finally:
            with self._uid_lock:
                self._uids.append(uid)

    def memory_fraction(self) -> float:
        """Each worker's share of its device's memory: the device is shared by the workers placed on it."""
        if self.config.device_memory_fraction:
            return self.config.device_memory_fraction
        per_device = -(-max(1, self.config.workers) // len(self.pool.devices))
        return 0.9 / per_device

    def reference(self, task: Task) -> Any:
        with self._ref_lock:
            if task.id not in self._refs:
                self._refs[task.id] = load_code(task.reference)  # type: ignore[arg-type]
            return self._refs[task.id]


def _coverable(paths: Sequence[str | Path], workdir: Path) -> list[str]:
    """The paths a worker's mount namespace may cover: none that holds the run's folder or the code workers run."""
    import kernelgenbench

    needed = [os.path.realpath(p) for p in (workdir, sys.prefix, os.path.dirname(kernelgenbench.__file__))]
    out = []
    for p in map(os.path.realpath, map(str, paths)):
        if not any(n == p or n.startswith(p.rstrip("/") + "/") for n in needed):
            out.append(p)
    return out


def _worker_uids(config: EvalConfig) -> tuple[list[int], list[str]]:
    """As root, one uid per worker slot, and the code folders to open to them (see isolation.to_reveal)."""
    if os.geteuid() != 0:
        return [], []
    import triton

    import kernelgenbench

    code = [sys.prefix, sys.base_prefix, os.path.dirname(torch.__file__), os.path.dirname(triton.__file__),
            os.path.dirname(kernelgenbench.__file__)]
    reveal = isolation.to_reveal(code)
    if reveal is None:
        return [], []  # workers keep uid 0 without capabilities (level pidns+nocaps)
    return [config.worker_uid_base + i for i in reversed(range(max(1, config.workers)))], reveal


def _no_reply_status(reply: Reply) -> Status:
    """A reply that did not come (timeout, crashed) or did not parse: a malformed report is the candidate's
    doing (it shares the worker's process and pipe), never trusted, and judged tampering."""
    return {"timeout": Status.TIMEOUT, "malformed": Status.TAMPERING}.get(reply.kind, Status.CRASHED)


def _import_verdict(reply: Reply, entry_point: str = "") -> Verdict:
    m = reply.message
    if isinstance(m, Raised):
        status = classify_exception(m.exc_type, m.message, at_import=True)
        return Verdict(status, f"{m.exc_type}: {m.message}\n{m.traceback}".strip())
    if not isinstance(m, Ready):
        return Verdict(_no_reply_status(reply), f"while importing the candidate: {reply.evidence}")
    if m.tampering:
        return Verdict(Status.TAMPERING, "at import: " + "; ".join(m.tampering))
    if not m.entry_point_found:
        return Verdict(Status.MISSING_ENTRY_POINT,
                       f"the candidate does not define the task's entry point: a function named {entry_point!r}")
    return Verdict(Status.PASSED)


def _run_workload(ctx: _Context, task: Task, cand: Candidate, w: Workload, worker: Worker,
                  device: str, phases: dict[str, float]) -> WorkloadResult:
    with ctx.pool.locks[device].shared(), _phase(phases, "check"):
        result, last_args, last_ref = _check_workload(ctx, task, cand, w, worker, device, phases)
    if result.status is Status.PASSED and w.purpose == "performance" and ctx.config.time_performance:
        result = _time_workload(ctx, task, w, worker, result, last_args, last_ref, device, phases)
    return result


def _judge_round(task: Task, worker: Worker, reply: Reply, device: str, ref_ret: Any, ref_args: dict[str, Any],
                 args: dict[str, Any], written: Any, phases: dict[str, float]) -> tuple[Verdict, dict[str, float]]:
    """One round's outputs read back and judged against the reference's; the evaluator's own failure while
    judging is this candidate's `evaluator_error`, not the run's end."""
    cand_out = None
    with _phase(phases, "transfer"):
        if reply.payload is not None:
            try:
                # Judged on the device, where the reference's outputs already are: comparing tens of MB
                # in float64 there takes milliseconds, against seconds on the host.
                cand_out = move_tree(worker.outputs(reply), device)
            except Exception:  # noqa: BLE001 - anything but plain tensors is the candidate's fault
                cand_out = None
    report = reply.report
    for seconds in (reply.sent_s, report.receive_s, report.send_s):
        _add_phase(phases, "transfer", seconds)
    # `args` is what the candidate was sent (the reference ran on clones): the untouched inputs.
    with _phase(phases, "judge"):
        try:
            verdict, s = judge_call(task, report, cand_out, ref_return=ref_ret, ref_args=ref_args,
                                    pristine=args, device=device, written=written)
        except Exception:  # noqa: BLE001 - the evaluator's own failure is this candidate's result, not the run's end
            verdict, s = Verdict(Status.EVALUATOR_ERROR, "the evaluator failed while judging this round "
                                 f"(not a verdict on the candidate):\n{_trace_tail()}"), {}
    _add_phase(phases, "candidate", report.elapsed_s)
    _add_phase(phases, "compile", report.compile_s)
    return verdict, s


def _check_workload(ctx: _Context, task: Task, cand: Candidate, w: Workload, worker: Worker,
                    device: str, phases: dict[str, float]) -> tuple[WorkloadResult, dict[str, Any], Any]:
    """Every correctness round of one workload; the result, and the last round's inputs and reference outputs
    (returned tensors and arguments written in place).

    Parts of 'check' in `phases`: 'reference' (inputs drawn, reference run), 'transfer' (inputs and outputs
    moved or fingerprinted, on both sides), 'candidate' (its calls, in its worker; 'compile' is the part
    spent compiling or loading its Triton kernels), 'judge', 'resend'.
    """
    cfg = ctx.config
    ref_fn = ctx.reference(task)
    stats: dict[str, float] = {}
    last_args: dict[str, Any] = {}
    last_ref: Any = None
    kernels: list[dict[str, Any]] | None = None
    base = {"task_id": task.id, "candidate_id": cand.candidate_id, "workload_id": w.id, "purpose": w.purpose}
    rounds = cfg.rounds if w.purpose == "correctness" else max(1, min(cfg.rounds, cfg.performance_rounds))
    for r in range(rounds):
        seed = seed_for(cfg.seed, task.id, w.id, r)
        try:
            with _phase(phases, "reference"):
                args = round_inputs(task, w, seed=seed, device=device)
                ref_args = clone_tree(args)
                torch.manual_seed(seed)
                pos, kw = split_call_args(task, ref_args)
                ref_ret = ref_fn(*pos, **kw)
        except Exception as exc:  # noqa: BLE001 - a broken record fails its task, never the run
            return WorkloadResult(**base, status=Status.REFERENCE_ERROR, rounds=r,
                                  evidence=f"the reference or input generator failed (record problem): {exc!r}"[:1500]), {}, None
        reuse = r % 2 == 1  # odd rounds run in the previous round's buffers (see `_call_round`)
        reply, written = _call_round(cfg, w, worker, args, seed, phases, reuse)
        if reply.kind in NO_REPLY:
            return WorkloadResult(**base, status=_no_reply_status(reply), rounds=r + 1, log_excerpt=reply.log_tail,
                                  evidence=f"round {r} (seed {seed}): {reply.evidence}"), {}, None
        verdict, s = _judge_round(task, worker, reply, device, ref_ret, ref_args, args, written, phases)
        profile = reply.report.profile
        kernels = [k.to_dict() for k in profile.kernels] if profile.available else None
        for k, x in s.items():
            stats[k] = max(stats.get(k, 0.0), x)
        if not verdict.passed:
            if verdict.status is Status.CRASHED:
                worker.kill()  # a device error poisons the context: nothing after it can be trusted
            note = interpreter_note(verdict, args) if _on_cpu(device) else ""
            if reuse:
                note += (" (this round's inputs were written into the previous round's buffers: a result "
                         "cached by input address is served stale)")
            return WorkloadResult(**base, status=verdict.status, rounds=r + 1,
                                  evidence=f"round {r} (seed {seed}): {verdict.evidence}{note}",
                                  max_abs_err=stats.get("max_abs_err"), max_rel_err=stats.get("max_rel_err"),
                                  log_excerpt=worker.log_tail(), kernels=kernels), {}, None
        # Speed of light counts what the call produced: the returns and the arguments written in place.
        last_args = args
        last_ref = written_outputs(ref_ret, ref_args, {p.name for p in task.mutable_params})
    result = WorkloadResult(**base, status=Status.PASSED, rounds=rounds, max_abs_err=stats.get("max_abs_err"),
                            max_rel_err=stats.get("max_rel_err"), kernels=kernels)
    return result, last_args, last_ref


def _call_round(cfg: EvalConfig, w: Workload, worker: Worker, args: dict[str, Any], seed: int,
                phases: dict[str, float], reuse: bool = False) -> tuple[Reply, dict[str, bool] | None]:
    """One call of the candidate on a round's inputs, and which inputs its fingerprints say it wrote.

    The worker first draws the inputs itself from the round's seed, so nothing large crosses between the
    processes; its fingerprints of them must equal the evaluator's (same device, same generator). When they
    do not, or it cannot draw, the inputs are sent as bytes and `written` is None (every argument comes back).
    With `reuse` the worker puts them in the previous round's buffers: timing cycles through a few argument
    sets, so a kernel that caches results by input address would be served from its cache there; in a
    reused round the cache is stale and fails the comparison.
    """
    key = secrets.randbits(62)  # fresh each round: no candidate can prepare a write that keeps a fingerprint
    with _phase(phases, "transfer"):
        own = {k: fingerprint(v, key) for k, v in args.items()}
    reply = worker.call_drawn(w.id, seed, key, cfg.call_timeout_s, reuse)
    if reply.kind in NO_REPLY:
        return reply, None
    if reply.kind in ("result", "error") and reply.report.inputs_before == own:
        after = reply.report.inputs_after or {}
        return reply, {k: after[k] != own[k] for k in after if k in own}
    with _phase(phases, "resend"):
        return worker.call(args, cfg.call_timeout_s, reuse), None


def _time_workload(ctx: _Context, task: Task, w: Workload, worker: Worker, result: WorkloadResult,
                   args: dict[str, Any], ref_out: Any, device: str, phases: dict[str, float]) -> WorkloadResult:
    if _on_cpu(device):
        return replace(result, timing=dict(CPU_TIMING))
    cfg = ctx.config
    seeds = [seed_for(cfg.seed, task.id, w.id, "time", i) for i in range(4)]
    with ctx.pool.locks[device].exclusive():  # nothing else runs on this device while it is timed
        with _phase(phases, "time"):
            reply = worker.time({"workload_id": w.id, "seeds": seeds, "config": cfg.timing}, cfg.timing_timeout_s)
        if reply.kind == "malformed":
            return replace(result, status=Status.TAMPERING, evidence=f"during timing: {reply.evidence}",
                           log_excerpt=reply.log_tail)
        if not isinstance(reply.message, TimeReport):
            return replace(result, timing={"available": False, "reason": f"timing failed: {reply.kind} "
                                           f"{reply.evidence}"}, log_excerpt=reply.log_tail)
        if reply.message.tampering:
            return replace(result, status=Status.TAMPERING,
                           evidence="during timing: " + "; ".join(reply.message.tampering))
        timing = reply.message.timing.to_dict()
        # Baselines are timed exactly as the candidate was (same repetitions, graph mode or not). Their inputs
        # come from base seed 0 whatever the run's seed: they are the evaluator's own code, so their inputs need
        # no secrecy, and a fixed seed keeps their disk cache valid across runs (an RL loop pays for them once).
        with _phase(phases, "baselines"):
            baselines = _call_optional("kernelgenbench.evaluator.baselines", "time_baselines", task, w,
                                       device=device, seed=seed_for(0, task.id, w.id, "time", 0),
                                       config=TimingConfig(**cfg.timing),
                                       compile_ref=cfg.compile_baseline)
        with _phase(phases, "sol"):
            sol = _call_optional("kernelgenbench.evaluator.sol", "speed_of_light", task, args, ref_out,
                                 device=device)
    floor = check_floor(timing, baselines, sol)  # a time under the physical floor is flagged (sol.py says why)
    status = Status.IMPOSSIBLE_TIMING if floor.impossible else result.status
    return replace(result, status=status, evidence=floor.note or result.evidence, timing=floor.timing,
                   baselines=floor.baselines, sol=sol)


def _call_optional(module: str, name: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Call a timing helper that may not be installed; its absence or failure is recorded, not raised."""
    import importlib

    try:
        fn = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        return {"available": False, "reason": f"{module}.{name} not available: {exc}"}
    try:
        out = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - a baseline failure must not lose the candidate's result
        return {"available": False, "reason": f"{name} failed: {exc!r}"[:500]}
    return out.to_dict() if hasattr(out, "to_dict") else dict(out)


def _trace_tail(chars: int = 3000) -> str:
    """The traceback of the exception being handled, its last `chars` characters."""
    return traceback.format_exc()[-chars:]


def evaluate_candidate(ctx: _Context, task: Task, cand: Candidate) -> CandidateResult:
    """All workloads of one candidate, in its own worker on the least busy device; rows written as known.

    Never raises (but for interrupts): an exception of the evaluator's own while this candidate is judged
    becomes its result, status evaluator_error with the traceback, and the run goes on with the next one.
    """
    t0 = time.perf_counter()
    try:
        with ctx.pool.checkout() as device:
            return _evaluate_on(ctx, task, cand, device)
    except Exception:  # noqa: BLE001 - one candidate must never stop the run
        res = CandidateResult(task_id=task.id, candidate_id=cand.candidate_id, source=task.source,
                              category=task.category, status=Status.EVALUATOR_ERROR,
                              evidence="the evaluator failed on this candidate (not a verdict on the candidate):\n"
                                       + _trace_tail(),
                              model=cand.model, method=cand.method, tokens=cand.tokens, code_sha256=cand.code_sha256,
                              elapsed_s=time.perf_counter() - t0,
                              platform=ctx.platforms.get(ctx.pool.devices[0], {}))
        ctx.writer.write(res.to_row())
        return res


def _evaluate_on(ctx: _Context, task: Task, cand: Candidate, device: str) -> CandidateResult:
    t0 = time.perf_counter()
    phases: dict[str, float] = {}
    platform = ctx.platforms[device]
    meta = {"task_id": task.id, "candidate_id": cand.candidate_id, "source": task.source, "category": task.category,
            "model": cand.model,
            "method": cand.method, "tokens": cand.tokens, "code_sha256": cand.code_sha256, "platform": platform,
            "seed": ctx.config.seed}

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
                     "isolation": {"workdir": str(home), "uid": uid, "gid": uid, "hide": ctx.hidden,
                                   "reveal": ctx.reveal}}
            return _run_worker(ctx, task, cand, device, setup, phases, finish)
        finally:
            shutil.rmtree(home, ignore_errors=True)  # nothing of it is left for the slot's next candidate


def _run_worker(ctx: _Context, task: Task, cand: Candidate, device: str, setup: dict[str, Any],
                phases: dict[str, float], finish: Callable[..., CandidateResult]) -> CandidateResult:
    """The candidate's worker: import, then every workload; `finish` writes the candidate's row."""
    platform = ctx.platforms[device]
    results: list[WorkloadResult] = []
    with ctx.pool.locks[device].shared(), _phase(phases, "start"):  # a candidate may launch kernels at import
        worker = Worker(setup, start_method=ctx.config.start_method)
        ready = worker.receive(ctx.config.import_timeout_s)
    try:
        level = worker.isolation_level
        v = _import_verdict(ready, task.entry_point)
        if not v.passed:
            return finish(v.status, v.evidence, log=ready.log_tail or worker.log_tail(), level=level)
        order = sorted(task.workloads, key=lambda w: w.purpose != "correctness")
        dead: str | None = None
        for w in order:
            base = {"task_id": task.id, "candidate_id": cand.candidate_id, "workload_id": w.id, "purpose": w.purpose,
                    "isolation": level}
            if dead is not None:
                res = WorkloadResult(**base, status=Status.SKIPPED, evidence=dead)
            elif w.purpose == "performance" and _on_cpu(device):
                res = WorkloadResult(**base, status=Status.SKIPPED, timing=dict(CPU_TIMING),
                                     evidence="performance workload: not run on CPU (Triton interpreter)")
            else:
                res = replace(_run_workload(ctx, task, cand, w, worker, device, phases), isolation=level)
                if not worker.alive:
                    dead = f"not run: the worker died on workload {w.id} ({res.status.value})"
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


def load_tasks_jsonl(path: Path) -> list[Task]:
    """Task records from a JSON Lines file (one record per line)."""
    tasks = []
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            tasks.append(Task.from_dict(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{i}: not valid JSON ({exc.msg})") from None
    return tasks


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
    config = replace(config, seed=resolve_seed(config.seed, out, resume))
    done = finished(out) if (resume and out is not None) else {}
    if out is not None and not resume and out.exists():
        out.unlink()  # replaced only when asked (`overwrite`; check_writable refused otherwise)
    writer = ResultsWriter(out, on_row, seed=config.seed)
    results: dict[int, CandidateResult] = {}
    with precision_policy(allow_tf32=False):  # references are judged in fp32 arithmetic
        _run_all(config, devices, writer, by_id, cands, done, results)
    return [results[i] for i in sorted(results)]


def _run_all(config: EvalConfig, devices: list[str], writer: ResultsWriter, by_id: dict[str, Task], cands: list[Candidate],
             done: dict[tuple[str, str], dict[str, Any]], results: dict[int, CandidateResult]) -> None:
    todo: list[tuple[int, Task, Candidate]] = []
    with tempfile.TemporaryDirectory(prefix="kgb-eval-") as tmp:
        ctx = _Context(config, devices, writer, Path(tmp))
        for i, c in enumerate(cands):
            if (c.task_id, c.candidate_id) in done:
                results[i] = CandidateResult.from_row(done[(c.task_id, c.candidate_id)])
            elif c.task_id not in by_id:
                res = CandidateResult(task_id=c.task_id, candidate_id=c.candidate_id, source=c.task_id.split("/")[0],
                                      status=Status.NOT_IN_DATASET,
                                      evidence="the task is not in the dataset (or not in the chosen config): not judged, not counted",
                                      model=c.model, method=c.method, tokens=c.tokens,
                                      platform=ctx.platforms[ctx.pool.devices[0]], seed=config.seed)
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


def auto_workers(devices: Sequence[str]) -> int:
    """Workers when none are asked for: on accelerators two per device (one compiles and checks while the
    other's candidate is timed), capped by the CPU count but never below one per device; one on CPU."""
    if all(_on_cpu(d) for d in devices):
        return 1
    return max(len(devices), min(2 * len(devices), os.cpu_count() or 1))
