"""Evaluation on a Ray cluster: one evaluator pool per node, verdicts streamed back to the driver.

Each node gets one actor that holds every accelerator of the node and owns today's `RunContext` (its
DevicePool, device locks and worker uids): it evaluates the candidates it is sent with `evaluate_candidate`,
each in its own isolated worker process exactly as a single-machine run does, and returns the candidate's
rows (its workload rows, then its candidate row) as plain dicts. The driver alone writes the results file,
in the order verdicts arrive (`ray.wait`), so `--resume` and the summary work as on one machine.

Platforms: with `platforms="all"` every candidate is evaluated once on each platform kind present (the
vendor in the rows' `platform`: nvidia, amd, intel, cpu for the interpreter, ...), and the resume key is
(task, candidate, platform kind). A node or actor that dies loses only the candidates in flight on it: each
is sent elsewhere up to `retries` more times, then reported `crashed` with the reasons.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from kernelgenbench.dataset.record import Task
from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator import platform as platform_mod
from kernelgenbench.evaluator.candidates import evaluate_candidate
from kernelgenbench.evaluator.config import EvalConfig, auto_workers
from kernelgenbench.evaluator.context import RunContext
from kernelgenbench.evaluator.precision import precision_policy
from kernelgenbench.evaluator.results import (
    CandidateResult,
    Key,
    ResultsWriter,
    WorkloadResult,
    judged_fields,
    not_in_dataset,
    open_results,
    platform_kind,
)
from kernelgenbench.evaluator.solutions import Candidate
from kernelgenbench.evaluator.status import Status

RETRIES = 2  # further attempts, on other actors, for a candidate whose actor or node died under it
PROBE_TIMEOUT_S = 180.0  # for an actor to be placed on its node and report its devices
REFRESH_S = 30.0  # how often the driver looks for nodes that joined
MAX_ACTORS_PER_NODE = 4  # actors started on one node over a run (a node that keeps killing them is dropped)
UID_STRIDE = 256  # worker uid slots per actor: two actors on one host (nodes sharing a machine) never share one
OnDispatch = Callable[[str, str, str, str], None]  # task id, candidate id, platform kind, node id


def require_ray() -> ModuleType:
    """The `ray` module, or a KgbError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise KgbError("--ray needs Ray, an optional extra: pip install 'kernelgenbench[ray]'") from None
    return ray


def workload_from_row(row: Mapping[str, Any]) -> WorkloadResult:
    """A WorkloadResult back from its JSON row."""
    names = {f.name for f in dataclasses.fields(WorkloadResult)}
    kw = {k: v for k, v in row.items() if k in names}
    return WorkloadResult(**{**kw, "status": Status(row["status"])})


def result_from_rows(rows: Sequence[Mapping[str, Any]]) -> CandidateResult:
    """A CandidateResult from one candidate's rows as an actor returns them (workload rows, then its row)."""
    task_row = rows[-1]
    workloads = tuple(workload_from_row(r) for r in rows if r.get("kind") == "workload")
    return dataclasses.replace(CandidateResult.from_row(dict(task_row)), workloads=workloads)


class NodeEvaluator:
    """One node's evaluator pool (runs as a Ray actor): a `RunContext` over the node's devices, fed by the driver."""

    def __init__(self, config: dict[str, Any]) -> None:
        cfg = EvalConfig(**{**config, "hidden_paths": tuple(config.get("hidden_paths", ()))})
        self.devices = platform_mod.resolve_devices(cfg.device)
        if cfg.workers <= 0:
            cfg = dataclasses.replace(cfg, workers=auto_workers(self.devices))
        self._stack = contextlib.ExitStack()  # held for the actor's life: policy and folder outlive each call
        # Entered once: the policy sets process-wide flags, which concurrent calls must not save and restore.
        self._stack.enter_context(precision_policy(allow_tf32=False))
        tmp = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="kgb-eval-")))
        self._local = threading.local()  # each call runs in its own thread of the actor; its rows go to it
        self.ctx = RunContext(cfg, self.devices, ResultsWriter(None, on_row=self._capture), tmp)

    def _capture(self, row: dict[str, Any]) -> None:
        self._local.rows.append(row)

    def probe(self) -> dict[str, Any]:
        """Where this actor runs and what it evaluates on: node id, platform row, kind and capacity."""
        import ray

        platform = self.ctx.platforms[self.devices[0]]
        return {"node_id": ray.get_runtime_context().get_node_id(), "platform": platform,
                "kind": platform_kind(platform), "capacity": self.ctx.config.workers, "devices": list(self.devices)}

    def evaluate(self, task: dict[str, Any], cand: dict[str, Any]) -> list[dict[str, Any]]:
        """Evaluate one candidate as a single-machine run would; its workload rows, then its candidate row."""
        self._local.rows = []
        evaluate_candidate(self.ctx, Task.from_dict(task), Candidate(**cand))
        rows, self._local.rows = self._local.rows, []
        return rows


@dataclass
class _Job:
    index: int
    task: Task
    cand: Candidate
    kind: str | None  # the platform kind it must run on; None: any
    reasons: list[str] = field(default_factory=list)  # why each earlier attempt was lost


@dataclass
class _Node:
    actor: Any
    node_id: str
    host: str
    slot: int  # its worker uids start at worker_uid_base + UID_STRIDE * slot (actors of one host never share)
    kind: str = ""
    capacity: int = 1
    platform: dict[str, Any] = field(default_factory=dict)
    inflight: int = 0
    alive: bool = True
    since: float = 0.0  # when its probe was sent


class _Scheduler:
    """The driver's side: actors per node, per-platform queues, results streamed to the writer."""

    def __init__(self, ray: ModuleType, config: EvalConfig, writer: ResultsWriter, retries: int,
                 on_dispatch: OnDispatch | None) -> None:
        self.ray = ray
        self.config = config
        self.writer = writer
        self.retries = retries
        self.on_dispatch = on_dispatch
        self.nodes: list[_Node] = []
        self.started: dict[str, int] = {}  # actors started per node id
        self.queues: dict[str | None, deque[_Job]] = {}
        self.inflight: dict[Any, tuple[_Job, _Node]] = {}
        self.results: dict[tuple[int, str], CandidateResult] = {}
        self._task_refs: dict[str, Any] = {}
        self._remote: Any = None
        self.failures: list[str] = []  # why actors could not be started, for the error when none could
        self.probing: dict[Any, _Node] = {}  # probe ref -> the actor's node, until the probe answers
        self._last_refresh = 0.0

    def refresh(self) -> None:
        """Start an actor on every live node that has none (at the start, after a death, when nodes join);
        each is adopted once its probe answers (`adopt`), without holding up the verdicts in flight."""
        self._last_refresh = time.monotonic()
        held = [n for n in self.nodes if n.alive] + list(self.probing.values())
        have = {n.node_id for n in held}
        for info in self.ray.nodes():
            nid = info.get("NodeID", "")
            if not info.get("Alive") or nid in have or self.started.get(nid, 0) >= MAX_ACTORS_PER_NODE:
                continue
            opts = self._actor_options(info.get("Resources") or {}, nid)
            if opts is None:
                continue  # no CPU and no accelerator to hold (a head node started with num_cpus=0)
            self.started[nid] = self.started.get(nid, 0) + 1
            host = str(info.get("NodeManagerAddress", nid))
            used = {n.slot for n in held if n.host == host}
            slot = min(i for i in range(len(used) + 1) if i not in used)
            config = dataclasses.replace(self.config, worker_uid_base=self.config.worker_uid_base + UID_STRIDE * slot)
            actor = self._actor_class().options(**opts).remote(dataclasses.asdict(config))
            node = _Node(actor, nid, host, slot, since=time.monotonic())
            self.probing[actor.probe.remote()] = node
            held.append(node)

    def _actor_class(self) -> Any:
        if self._remote is None:
            self._remote = self.ray.remote(NodeEvaluator)
        return self._remote

    def _actor_options(self, resources: Mapping[str, float], node_id: str) -> dict[str, Any] | None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        cpus = float(resources.get("CPU", 0))
        gpus = 0.0 if self.config.device.strip() == "cpu" else float(resources.get("GPU", 0))
        if cpus < 1 and gpus == 0:
            return None
        # The actor takes every accelerator of its node (Ray then makes them visible to it) and one CPU.
        return {"num_cpus": 1 if cpus >= 1 else 0, "num_gpus": gpus, "max_concurrency": 64, "max_restarts": 0,
                "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id, soft=False)}

    def adopt(self, ready: Iterable[Any]) -> None:
        """Adopt the actors whose probe answered; kill those that failed or stay unplaced past the timeout
        (their node is busy or broken: it is left out, which is not fatal)."""
        now = time.monotonic()
        for ref in [r for r in ready if r in self.probing]:
            node = self.probing.pop(ref)
            try:
                info = self.ray.get(ref)
            except self.ray.exceptions.RayError as exc:
                self.failures.append(f"node {node.node_id[:12]}: {type(exc).__name__}: {_first_line(exc)}")
                self.ray.kill(node.actor)
                continue
            node.kind, node.capacity, node.platform = info["kind"], max(1, int(info["capacity"])), info["platform"]
            self.nodes.append(node)
        for ref, node in list(self.probing.items()):
            if now - node.since > PROBE_TIMEOUT_S:
                self.failures.append(f"node {node.node_id[:12]}: not placed within {PROBE_TIMEOUT_S:.0f} s")
                del self.probing[ref]
                self.ray.kill(node.actor)

    def start(self) -> None:
        """Actors on every node, waiting (up to the probe timeout) until each is placed or given up."""
        self.refresh()
        while self.probing:
            ready, _ = self.ray.wait(list(self.probing), num_returns=len(self.probing), timeout=5.0)
            self.adopt(ready)

    def kinds(self) -> list[str]:
        """The platform kinds of the live actors, in the order first seen."""
        return list(dict.fromkeys(n.kind for n in self.nodes if n.alive))

    def platform_of(self, kind: str | None) -> dict[str, Any]:
        """The platform row of a live (else any) node of that kind."""
        nodes = sorted(self.nodes, key=lambda n: not n.alive)
        return next((n.platform for n in nodes if kind is None or n.kind == kind), {})

    def submit(self, jobs: Iterable[_Job]) -> None:
        """Queue jobs by platform kind."""
        for j in jobs:
            self.queues.setdefault(j.kind, deque()).append(j)

    def _task_ref(self, task: Task) -> Any:
        if task.id not in self._task_refs:  # each record crosses to the object store once
            self._task_refs[task.id] = self.ray.put(task.to_dict())
        return self._task_refs[task.id]

    def _dispatch(self) -> None:
        """Fill every live actor up to its capacity from its platform's queue (least loaded first)."""
        for kind, queue in self.queues.items():
            while queue:
                free = [n for n in self.nodes if n.alive and (kind is None or n.kind == kind)
                        and n.inflight < n.capacity]
                if not free:
                    break
                node = min(free, key=lambda n: n.inflight / n.capacity)
                job = queue.popleft()
                ref = node.actor.evaluate.remote(self._task_ref(job.task), dataclasses.asdict(job.cand))
                node.inflight += 1
                self.inflight[ref] = (job, node)
                if self.on_dispatch is not None:
                    self.on_dispatch(job.task.id, job.cand.candidate_id, node.kind, node.node_id)

    def run(self) -> None:
        """Until every queued job has a verdict: dispatch, wait for the next verdict or actor, record it."""
        while any(self.queues.values()) or self.inflight:
            self._dispatch()
            if time.monotonic() - self._last_refresh > REFRESH_S:
                self.refresh()  # nodes that joined the cluster get an actor
            if not self.inflight and not self.probing:
                self.refresh()  # nothing can run: look for live nodes without an actor
                if not self.probing:
                    self._abandon()
                    continue
            ready, _ = self.ray.wait([*self.inflight, *self.probing], num_returns=1, timeout=5.0)
            self.adopt(ready)
            for ref in ready:
                if ref in self.inflight:
                    self._finish(ref)

    def _finish(self, ref: Any) -> None:
        job, node = self.inflight.pop(ref)
        node.inflight -= 1
        try:
            rows = self.ray.get(ref)
        except self.ray.exceptions.RayError as exc:
            self._lost(job, node, exc)
            return
        for row in rows:
            self.writer.write(row)
        self.results[(job.index, job.kind or "")] = result_from_rows(rows)

    def _lost(self, job: _Job, node: _Node, exc: BaseException) -> None:
        """An attempt lost with its actor (or to an error of the evaluator): retry elsewhere, or report it."""
        # Anything but an error raised inside `evaluate` (a RayTaskError) means the actor is gone or unreachable.
        if not isinstance(exc, self.ray.exceptions.RayTaskError) and node.alive:
            node.alive = False  # its other in-flight candidates come back through here one by one
            self.refresh()  # a live node whose actor died gets a new one
        job.reasons.append(f"attempt {len(job.reasons) + 1} on node {node.node_id[:12]}: "
                           f"{type(exc).__name__}: {_first_line(exc)}")
        if len(job.reasons) <= self.retries:
            self.queues.setdefault(job.kind, deque()).appendleft(job)
        else:
            self._crashed(job, node.platform, "the evaluation was lost with its node or actor "
                                              f"{len(job.reasons)} time(s): " + "; ".join(job.reasons))

    def _abandon(self) -> None:
        """Jobs no live actor can take: each reported crashed, so the run ends with a verdict for all."""
        for kind, queue in self.queues.items():
            while queue:
                job = queue.popleft()
                why = "; ".join(job.reasons) or "none was ever reachable"
                self._crashed(job, self.platform_of(kind),
                              f"no live node of platform {kind or 'any'} is left to evaluate it ({why})")

    def _crashed(self, job: _Job, platform: dict[str, Any], evidence: str) -> None:
        res = CandidateResult(**judged_fields(job.task, job.cand, platform=platform, seed=self.config.seed),
                              status=Status.CRASHED, evidence=evidence)
        self.writer.write(res.to_row())
        self.results[(job.index, job.kind or "")] = res


def _first_line(exc: BaseException) -> str:
    """An exception's text in one line: its first line and, for Ray's (which carry the remote traceback), the
    last, where the remote error is; capped."""
    lines = [x.strip() for x in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).splitlines() if x.strip()]
    text = lines[0] if lines else ""
    if len(lines) > 1:
        text = f"{text[:200]} ... {lines[-1]}"
    return text[:500]


def per_platform(platforms: str) -> bool:
    """Whether a `platforms` value asks for one evaluation per platform kind ('all' or a list), not 'one'/'any'."""
    return platforms.strip().lower() not in ("", "one", "any")


def select_kinds(platforms: str, present: Sequence[str]) -> list[str | None]:
    """The platform kinds to evaluate on: [None] for one (any), all present ones, or a named subset."""
    if not per_platform(platforms):
        return [None]
    spec = platforms.strip().lower()
    if spec == "all":
        return list(present)
    wanted = [k.strip() for k in spec.split(",") if k.strip()]
    missing = [k for k in wanted if k not in present]
    if missing:
        raise KgbError(f"no node of platform(s) {missing} in the cluster (present: {list(present)}); "
                       "use --platforms all or one of those present")
    return list(dict.fromkeys(wanted))


def _connect(ray: ModuleType, address: str | None) -> bool:
    """Connect to the cluster at `address` (None or 'local': start a local instance); True if we started it."""
    if ray.is_initialized():
        return False
    local = address in (None, "", "local")
    kw: dict[str, Any] = {"include_dashboard": False} if local else {}
    # "local" starts one even where /tmp/ray names an instance started before: with None, Ray connects to that
    # one, and waits forever for its GCS if it was killed (a CI run killed mid-test left such a file here)
    ray.init(address="local" if local else address, log_to_driver=False, logging_level="warning", **kw)
    return True


def run_on_ray(tasks: Iterable[Task], candidates: Iterable[Candidate], *, config: EvalConfig | None = None,
               out: Path | None = None, resume: bool = False, address: str | None = None, platforms: str = "one",
               retries: int = RETRIES, on_row: Callable[[dict[str, Any]], None] | None = None,
               on_dispatch: OnDispatch | None = None) -> list[CandidateResult]:
    """Evaluate every candidate on a Ray cluster (per platform kind with platforms='all'); results in
    candidate order, then platform order (resumed ones read back)."""
    ray = require_ray()
    config = config or EvalConfig()
    by_id = {t.id: t for t in tasks}
    cands = list(candidates)
    by_platform = per_platform(platforms)
    seed, done, writer = open_results(out, resume=resume, seed=config.seed, on_row=on_row, by_platform=by_platform)
    config = dataclasses.replace(config, seed=seed)
    if out is not None:  # on a node that shares this file system, workers never see the results file
        config = dataclasses.replace(config, hidden_paths=(*config.hidden_paths, str(out.resolve())))
    ours = _connect(ray, address)
    try:
        sched = _Scheduler(ray, config, writer, retries, on_dispatch)
        sched.start()
        if not sched.nodes:
            raise KgbError("no node of the Ray cluster could host an evaluator (each needs a CPU or an accelerator, "
                           "and kernelgenbench importable): " + ("; ".join(sched.failures) or "no node has either"))
        kinds = select_kinds(platforms, sched.kinds())
        _queue(sched, by_id, cands, kinds, done, by_platform)
        sched.run()
    finally:
        if ours:
            ray.shutdown()
    order = {k: i for i, k in enumerate(kinds)}
    return [sched.results[k] for k in sorted(sched.results, key=lambda k: (k[0], order.get(k[1] or None, 0)))]


def _queue(sched: _Scheduler, by_id: Mapping[str, Task], cands: Sequence[Candidate], kinds: Sequence[str | None],
           done: Mapping[Key, dict[str, Any]], by_platform: bool) -> None:
    """Resumed results read back, unknown tasks answered at once, every other (candidate, kind) queued."""
    jobs = []
    for i, c in enumerate(cands):
        for kind in kinds:
            key: Key = (c.task_id, c.candidate_id, *((kind,) if by_platform and kind else ()))
            if key in done:
                sched.results[(i, kind or "")] = CandidateResult.from_row(done[key])
            elif c.task_id not in by_id:
                res = not_in_dataset(c, platform=sched.platform_of(kind), seed=sched.config.seed)
                sched.writer.write(res.to_row())
                sched.results[(i, kind or "")] = res
            else:
                jobs.append(_Job(i, by_id[c.task_id], c, kind))
    sched.submit(jobs)
