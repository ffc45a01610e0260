"""One workload of one candidate: its correctness rounds (inputs drawn, reference run, call, judgement),
then, for a performance workload that passed, its timing against the baselines and the speed of light.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import torch

from kernelgenbench.dataset.record import Task, Workload
from kernelgenbench.evaluator.baselines import time_baselines
from kernelgenbench.evaluator.compare import RANDOM_MIN_ELEMENTS
from kernelgenbench.evaluator.config import EvalConfig, on_cpu
from kernelgenbench.evaluator.context import INTERPRETER_CAVEATS, RunContext
from kernelgenbench.evaluator.cost import flatten_tensors, written_outputs
from kernelgenbench.evaluator.host_values import matched
from kernelgenbench.evaluator.inputs import round_inputs, split_call_args
from kernelgenbench.evaluator.judge import judge_call
from kernelgenbench.evaluator.results import WorkloadResult
from kernelgenbench.evaluator.sol import check_floor, speed_of_light
from kernelgenbench.evaluator.solutions import Candidate
from kernelgenbench.evaluator.status import PASS, Status, Verdict
from kernelgenbench.evaluator.supervisor import NO_REPLY, Reply, Worker
from kernelgenbench.evaluator.timing import TimingConfig
from kernelgenbench.evaluator.transfer import TransferRewritten, clone_tree, fingerprint, move_tree
from kernelgenbench.sandbox.protocol import TimeReport


def seed_for(base: int, *parts: object) -> int:
    """A stable 31-bit seed for one round of one workload (its parts name the round; see `round_seed`)."""
    digest = hashlib.sha256(":".join(str(p) for p in (base, *parts)).encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


def round_seed(base: int, cand: Candidate, task: Task, w: Workload, *parts: object) -> int:
    """The seed of one round of one candidate. The candidate is part of it: candidates of one task that share
    inputs could pass answers along (one computes and leaves them in a file, another copies them in). The
    run's base seed is the per-run salt (fresh and random unless given, recorded in every row), so `--seed`
    and the candidate id reproduce any round."""
    return seed_for(base, task.id, w.id, *parts, "candidate", cand.candidate_id)


def interpreter_note(verdict: Verdict, args: dict[str, Any]) -> str:
    """Where Triton's interpreter may be the cause of a failure, say so beside the evidence."""
    text = verdict.evidence.lower()
    if verdict.status in (Status.RUNTIME_ERROR, Status.COMPILE_ERROR) and ("autotun" in text or "do_bench" in text):
        return f"\n[interpreter] {INTERPRETER_CAVEATS[1]}"
    tensors = [t for v in args.values() for t in flatten_tensors(v)]
    if verdict.status is Status.INCORRECT_NUMERICS and any(t.dtype == torch.bfloat16 for t in tensors):
        return f"\n[interpreter] {INTERPRETER_CAVEATS[0]}"
    return ""


@contextlib.contextmanager
def phase(phases: dict[str, float], name: str) -> Iterator[None]:
    """Add the block's wall time to phases[name] (the evaluator's own cost, reported per candidate)."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        add_phase(phases, name, time.perf_counter() - t0)


def add_phase(phases: dict[str, float], name: str, seconds: Any) -> None:
    """Add seconds measured elsewhere (a worker's header value; None counts as 0) to phases[name]."""
    phases[name] = phases.get(name, 0.0) + float(seconds or 0.0)


def run_workload(ctx: RunContext, task: Task, cand: Candidate, w: Workload, worker: Worker,
                  device: str, phases: dict[str, float]) -> WorkloadResult:
    with ctx.pool.locks[device].shared(), phase(phases, "check"):
        result, last_args, last_ref = _check_workload(ctx, task, cand, w, worker, device, phases)
    if result.status is Status.PASSED and w.purpose == "performance" and ctx.config.time_performance:
        result = _time_workload(ctx, task, cand, w, worker, result, last_args, last_ref, device, phases)
    return result


def no_reply_status(reply: Reply) -> Status:
    """A reply that did not come (timeout, crashed) or did not parse: a malformed report is the candidate's
    doing (it shares the worker's process and pipe), never trusted, and judged tampering."""
    return {"timeout": Status.TIMEOUT, "malformed": Status.TAMPERING}.get(reply.kind, Status.CRASHED)


def _judge_round(task: Task, worker: Worker, reply: Reply, device: str, ref_ret: Any, ref_args: dict[str, Any],
                 args: dict[str, Any], written: Any, phases: dict[str, float]) -> tuple[Verdict, dict[str, float], Any]:
    """One round's outputs read back and judged against the reference's, and the outputs (on `device`); the
    evaluator's own failure while judging is this candidate's `evaluator_error`, not the run's end."""
    cand_out = None
    with phase(phases, "transfer"):
        if reply.payload is not None:
            try:
                # Judged on the device, where the reference's outputs already are: comparing tens of MB
                # in float64 there takes milliseconds, against seconds on the host.
                cand_out = move_tree(worker.outputs(reply), device)
            except TransferRewritten as exc:
                return Verdict(Status.TAMPERING, str(exc)), {}, None
            except Exception:  # noqa: BLE001 - anything but plain tensors is the candidate's fault
                cand_out = None
    # Whatever the worker said, the evaluator finds the host-made values in the outputs itself.
    report = replace(reply.report, host_matched=matched(reply.report.host_made, cand_out) if cand_out else 0)
    for seconds in (reply.sent_s, report.receive_s, report.send_s):
        add_phase(phases, "transfer", seconds)
    # `args` is what the candidate was sent (the reference ran on clones): the untouched inputs.
    with phase(phases, "judge"):
        try:
            verdict, s = judge_call(task, report, cand_out, ref_return=ref_ret, ref_args=ref_args,
                                    pristine=args, device=device, written=written)
        except Exception:  # noqa: BLE001 - the evaluator's own failure is this candidate's result, not the run's end
            verdict, s = Verdict(Status.EVALUATOR_ERROR, "the evaluator failed while judging this round "
                                 f"(not a verdict on the candidate):\n{trace_tail()}"), {}
    add_phase(phases, "candidate", report.elapsed_s)
    add_phase(phases, "compile", report.compile_s)
    return verdict, s, cand_out


def _check_workload(ctx: RunContext, task: Task, cand: Candidate, w: Workload, worker: Worker,
                    device: str, phases: dict[str, float]) -> tuple[WorkloadResult, dict[str, Any], Any]:
    """Every correctness round of one workload; the result, and the last round's inputs and reference outputs
    (returned tensors and arguments written in place).

    Parts of 'check' in `phases`: 'reference' (inputs drawn, reference run), 'transfer' (inputs and outputs
    moved or fingerprinted, on both sides), 'candidate' (its calls, in its worker; 'compile' is the part
    spent compiling or loading its Triton kernels), 'judge', 'resend'.
    """
    cfg = ctx.config
    mutable = {p.name for p in task.mutable_params}
    stats: dict[str, float] = {}
    last_args: dict[str, Any] = {}
    last_ref: Any = None
    kernels: list[dict[str, Any]] | None = None
    base = {"task_id": task.id, "candidate_id": cand.candidate_id, "workload_id": w.id, "purpose": w.purpose}
    rounds = cfg.rounds if w.purpose == "correctness" else max(1, min(cfg.rounds, cfg.performance_rounds))
    for r in range(rounds):
        seed = round_seed(cfg.seed, cand, task, w, r)
        try:
            with phase(phases, "reference"):
                args = round_inputs(task, w, seed=seed, device=device)
                ref_ret, ref_args = _reference(ctx, task, args, seed)
        except Exception as exc:  # noqa: BLE001 - a broken record fails its task, never the run
            return WorkloadResult(**base, status=Status.REFERENCE_ERROR, rounds=r,
                                  evidence=f"the reference or input generator failed (record problem): {exc!r}"[:1500]), {}, None
        reuse = r % 2 == 1  # odd rounds run in the previous round's buffers (see `_call_round`)
        reply, written = _call_round(cfg, w, worker, args, seed, phases, reuse)
        if reply.kind in NO_REPLY:
            return WorkloadResult(**base, status=no_reply_status(reply), rounds=r + 1, log_excerpt=reply.log_tail,
                                  evidence=f"round {r} (seed {seed}): {reply.evidence}"), {}, None
        verdict, s, cand_out = _judge_round(task, worker, reply, device, ref_ret, ref_args, args, written, phases)
        # Speed of light counts what the call produced: the returns and the arguments written in place.
        produced = written_outputs(ref_ret, ref_args, mutable)
        if verdict.passed and r == rounds - 1 and task.semantics == "random" and w.purpose == "correctness":
            verdict = _draws_again(ctx, task, w, worker, (seed, args, produced), clone_tree(cand_out), device, phases)
        profile = reply.report.profile
        kernels = [k.to_dict() for k in profile.kernels] if profile.available else None
        for k, x in s.items():
            stats[k] = max(stats.get(k, 0.0), x)
        if not verdict.passed:
            if verdict.status is Status.CRASHED:
                worker.kill()  # a device error poisons the context: nothing after it can be trusted
            note = interpreter_note(verdict, args) if on_cpu(device) else ""
            if reuse:
                note += (" (this round's inputs were written into the previous round's buffers: a result "
                         "cached by input address is served stale)")
            return WorkloadResult(**base, status=verdict.status, rounds=r + 1,
                                  evidence=f"round {r} (seed {seed}): {verdict.evidence}{note}",
                                  max_abs_err=stats.get("max_abs_err"), max_rel_err=stats.get("max_rel_err"),
                                  log_excerpt=worker.log_tail(), kernels=kernels), {}, None
        last_args, last_ref = args, produced
    result = WorkloadResult(**base, status=Status.PASSED, rounds=rounds, max_abs_err=stats.get("max_abs_err"),
                            max_rel_err=stats.get("max_rel_err"), kernels=kernels)
    return result, last_args, last_ref


def _reference(ctx: RunContext, task: Task, args: dict[str, Any], seed: int) -> tuple[Any, dict[str, Any]]:
    """The reference run on clones of `args` under torch seed `seed`: what it returned, and its arguments as it
    left them (the ones it writes written)."""
    ref_args = clone_tree(args)
    torch.manual_seed(seed)
    pos, kw = split_call_args(task, ref_args)
    return ctx.reference(task)(*pos, **kw), ref_args


def _draws_again(ctx: RunContext, task: Task, w: Workload, worker: Worker, last: tuple[int, dict[str, Any], Any],
                 first: Any, device: str, phases: dict[str, float]) -> Verdict:
    """A random op called again on the last round's inputs must draw again: the same output twice is a fixed
    seed or a function of the input values (`self < p` on uniform inputs has the right distribution), not a
    sampler. `last`: the round's seed, inputs and reference outputs; `first`: the candidate's outputs. Judged
    only where a second reference draw differs from the round's (p = 0 or 1 draws the same every time)."""
    seed, args, produced = last
    ret, ref_args = _reference(ctx, task, args, seed ^ 1)
    drawn = _large_leaves(produced)
    if not drawn or _same_draw(drawn, _large_leaves(written_outputs(ret, ref_args, {p.name for p in task.mutable_params}))):
        return PASS
    reply, _ = _call_round(ctx.config, w, worker, args, seed, phases)
    if reply.kind in NO_REPLY:
        return Verdict(no_reply_status(reply), f"called again on the same inputs: {reply.evidence}")
    try:
        again = _large_leaves(move_tree(worker.outputs(reply), device))
    except Exception:  # noqa: BLE001 - nothing readable came back: not the same draw, and not a verdict either
        return PASS
    before = _large_leaves(first)
    if before and _same_draw(before, again):
        return Verdict(Status.INCORRECT_NUMERICS,
                       "called twice on the same inputs, the random op gave the same draw twice (a fixed seed, or "
                       "a function of the input values): a sampler draws anew on every call")
    return PASS


def _same_draw(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def _large_leaves(value: Any) -> list[torch.Tensor]:
    """The tensors of an output tree (a worker's {"returns", "args"} too) large enough to tell two draws apart."""
    if isinstance(value, Mapping):
        return [t for k in sorted(value) for t in _large_leaves(value[k])]
    return [t for t in flatten_tensors(value) if t.numel() >= RANDOM_MIN_ELEMENTS]


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
    with phase(phases, "transfer"):
        own = {k: fingerprint(v, key) for k, v in args.items()}
    reply = worker.call_drawn(w.id, seed, key, cfg.call_timeout_s, reuse)
    if reply.kind in NO_REPLY:
        return reply, None
    if reply.kind in ("result", "error") and reply.report.inputs_before == own:
        after = reply.report.inputs_after or {}
        return reply, {k: after[k] != own[k] for k in after if k in own}
    with phase(phases, "resend"):
        return worker.call(args, cfg.call_timeout_s, reuse, seed), None


def _time_workload(ctx: RunContext, task: Task, cand: Candidate, w: Workload, worker: Worker, result: WorkloadResult,
                   args: dict[str, Any], ref_out: Any, device: str, phases: dict[str, float]) -> WorkloadResult:
    """A passed performance workload timed against its baselines and speed of light (never on CPU: the
    candidate loop skips performance workloads there before any round runs)."""
    cfg = ctx.config
    seeds = [round_seed(cfg.seed, cand, task, w, "time", i) for i in range(4)]
    with ctx.pool.locks[device].exclusive():  # nothing else runs on this device while it is timed
        with phase(phases, "time"):
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
        timing["timed_only_kernels"] = timed_only_kernels(reply.message.timing, result.kernels)
        # Baselines are timed exactly as the candidate was (same repetitions, graph mode or not). Their inputs
        # come from base seed 0 whatever the run's seed: they are the evaluator's own code, so their inputs need
        # no secrecy, and a fixed seed keeps their disk cache valid across runs (an RL loop pays for them once).
        with phase(phases, "baselines"):
            baselines = _recorded(time_baselines, task, w, device=device, seed=seed_for(0, task.id, w.id, "time", 0),
                                  config=TimingConfig(**cfg.timing), compile_ref=cfg.compile_baseline)
        with phase(phases, "sol"):
            sol = _recorded(speed_of_light, task, args, ref_out, device=device)
    floor = check_floor(timing, baselines, sol)  # a time under the physical floor is flagged (sol.py says why)
    status = Status.IMPOSSIBLE_TIMING if floor.impossible else result.status
    return replace(result, status=status, evidence=floor.note or result.evidence, timing=floor.timing,
                   baselines=floor.baselines, sol=sol)


def timed_only_kernels(timing: Any, checked: list[dict[str, Any]] | None) -> list[str] | None:
    """Kernels the timed calls ran that no checked call of the workload ran (None: the checked calls' kernels
    were not recorded). Reported, not judged yet: a candidate that calls a library only when timed shows here,
    and whether honest ones ever do is to be measured on a device first."""
    if checked is None or not timing.kernel_names:
        return None
    seen = {k.get("name") for k in checked}
    return [n for n in timing.kernel_names if n not in seen]


def _recorded(fn: Callable[..., Mapping[str, Any]], *args: Any, **kwargs: Any) -> dict[str, Any]:
    """The baselines' or the speed of light's dict; a failure is recorded in its place, never raised."""
    try:
        return dict(fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - a baseline failure must not lose the candidate's result
        return {"available": False, "reason": f"{fn.__name__} failed: {exc!r}"[:500]}


def trace_tail(chars: int = 3000) -> str:
    """The traceback of the exception being handled, its last `chars` characters."""
    return traceback.format_exc()[-chars:]
