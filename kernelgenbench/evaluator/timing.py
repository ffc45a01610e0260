"""Device-side timing of one callable: cold L2, fresh buffers for the repetitions, all streams counted.

Warm-up and repetitions cycle through argument sets on fresh device buffers, as many as the memory budget
allows (a kernel that caches results by address is caught by the correctness rounds, which reuse buffers
with new values); each call follows an L2 flush outside the timed window. Two clocks run over the same
repetitions:
- the profiler's device records (CUPTI on NVIDIA, roctracer on AMD): the time the device was busy with the
  repetition — the union of its kernels', copies' and memsets' intervals on every stream, side streams
  included; the gaps between them (launch latency, the host waiting for a result) are not kernel time, and
  Nsight Compute, which sums kernel durations, leaves them out too (a two-kernel torch.sum of 2^22 floats:
  11.4 us busy, 20.2 us span, 11.3 us by ncu; bench/bench_timing_vs_ncu.py). The span from the first to the
  last activity is kept beside it;
- device events on the current stream around the call — what a user's stream would see, launch included.
The headline is the 10 %-trimmed mean of the busy times; their median and IQR, the event time and a launch-bound
flag sit beside it. Not the median: a memory-bound kernel's repetitions fall into two modes about 3 % apart
on the H200 (49.5 and 51.0 us for a 192 MB add, in nearly equal shares), and the median of 50 jumps between
them — 0.5 % coefficient of variation from window to window of one long series, where the trimmed mean
has 0.09 % and still drops a stray slow repetition (bench/bench_timing_noise.py). An optional graph mode
captures several calls into one graph and times its replay, for launch-bound kernels.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from kernelgenbench.evaluator.transfer import clone_tree
from kernelgenbench.sandbox.protocol import Timing  # what a timing is: it travels back from the worker

# A repetition this short is dominated by launch overhead when timed with host-side launches.
LAUNCH_BOUND_US = 20.0
_FLUSH_KERNEL_HINT = "kgb_l2_flush"
TRIM = 0.1  # share of repetitions dropped at each end before averaging

ArgSet = tuple[Sequence[Any], dict[str, Any]]


@dataclass(frozen=True)
class TimingConfig:
    """How to time: repetitions, warm-up, L2 flush, graph replay, and the memory allowed for fresh buffers."""

    warmup: int = 5  # calls at least, and
    warmup_ms: float = 25.0  # device time at least (clocks and caches settle; do_bench's default too)
    # Timed repetitions: `reps`, fewer where they would take over `max_timed_ms` of device time, never
    # fewer than `min_reps`. 50 repetitions of a 50 us kernel (4 ms) fall into a short stretch in which one of
    # its two duration modes can dominate: five evaluations then spread by up to 1.8 %; 200 by 0.6 %.
    reps: int = 200
    max_timed_ms: float = 1000.0
    min_reps: int = 10
    flush_l2: bool = True
    # "write" (default): evict by writing, L2 left dirty as in back-to-back steady state, the way the copy
    # ceiling is measured; "read": L2 left clean, so a call's output writes can stay in L2 unaccounted.
    flush_mode: str = "write"
    graph: bool = False
    graph_calls: int = 20
    buffer_budget_bytes: int = 8 << 30


def unavailable(reason: str) -> Timing:
    """A Timing that says why nothing was timed."""
    return Timing(available=False, reason=reason)


def _device_module(device: torch.device) -> Any:
    mod = getattr(torch, device.type, None)
    if mod is None or not hasattr(mod, "Event"):
        raise RuntimeError(f"torch.{device.type} has no Event API")
    return mod


def l2_bytes(device: torch.device) -> int:
    """The device's L2 size in bytes (64 MiB when the runtime does not say)."""
    try:
        props = _device_module(device).get_device_properties(device)
        return int(getattr(props, "L2_cache_size", 0) or 64 << 20)
    except Exception:  # noqa: BLE001 - any backend without properties gets the conservative default
        return 64 << 20


def _flush_fn(device: torch.device, nbytes: int, mode: str = "write") -> Callable[[], None]:
    """A flush that touches every line of a buffer of `nbytes` (>= 2x L2), evicting the candidate's data.

    By default it writes, leaving the L2 full of dirty lines that drain while the timed call runs: the
    steady state of back-to-back kernels, in which the device's copy ceiling is measured too. A reading
    flush leaves the L2 clean, and then up to an L2 of the call's own output never reaches memory inside
    the timed window: on the H200 a 192 MB add timed 43.9 us that way, under its 46.9 us floor at the
    measured copy bandwidth (49.2 us with the writing flush). The read cannot be optimised away: a program
    stores only if its sum hits a value a zero buffer never gives. It is a Triton kernel of its own name
    so that the profiler's records split at it unambiguously, whatever kernels the candidate launches.
    """
    import triton
    import triton.language as tl

    @triton.jit
    def kgb_l2_flush(ptr, sink, n, WRITE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        if WRITE:
            tl.store(ptr + offs, 7, mask=mask)
        else:
            total = tl.sum(tl.load(ptr + offs, mask=mask, other=0), axis=0)
            if total == 123456789:
                tl.store(sink + tl.program_id(0), total)

    if mode not in ("read", "write"):
        raise ValueError(f"flush_mode must be 'read' or 'write', not {mode!r}")
    buf = torch.zeros(nbytes // 4, dtype=torch.int32, device=device)
    n, block = buf.numel(), 4096
    grid = (triton.cdiv(n, block),)
    sink = torch.zeros(grid[0], dtype=torch.int32, device=device)

    def flush() -> None:
        kgb_l2_flush[grid](buf, sink, n, WRITE=mode == "write", BLOCK=block)

    return flush


def _nbytes(x: Any) -> int:
    """Bytes of the distinct storages under `x` (views of one storage count once, as `clone_tree` copies them)."""
    seen: dict[int, int] = {}

    def walk(v: Any) -> None:
        if isinstance(v, torch.Tensor):
            st = v.untyped_storage()
            seen[st.data_ptr()] = max(seen.get(st.data_ptr(), 0), st.nbytes())
        elif isinstance(v, list | tuple):
            for u in v:
                walk(u)
        elif isinstance(v, dict):
            for u in v.values():
                walk(u)

    walk(x)
    return sum(seen.values())


def fresh_arg_sets(base: Sequence[ArgSet], count: int, budget_bytes: int) -> list[ArgSet]:
    """`count` argument sets on fresh device buffers, cloned from `base` round-robin, within a memory budget."""
    per_set = max(1, max(_nbytes(b) for b in base))
    n = max(1, min(count, budget_bytes // per_set))
    return [clone_tree(base[i % len(base)]) for i in range(n)]


def _quantiles(xs: list[float]) -> tuple[float, float]:
    if len(xs) < 4:
        return statistics.median(xs), 0.0
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[1], q[2] - q[0]


def trimmed_mean(xs: Sequence[float], trim: float = TRIM) -> float:
    """Mean of `xs` without the `trim` share of smallest and of largest values."""
    ys = sorted(xs)
    k = int(len(ys) * trim)
    return statistics.fmean(ys[k:len(ys) - k])


def _device_activities(prof: Any) -> list[tuple[int, int, int, str]]:
    """(start_ns, end_ns, stream, name) of every device kernel, memcpy and memset the profiler saw."""
    acts = []
    for ev in prof.profiler.kineto_results.events():
        if ev.device_type() == torch.autograd.DeviceType.CPU:
            continue
        # activity_type() exists from torch 2.12; before, device-side records are exactly these plus annotations.
        kind = ev.activity_type() if hasattr(ev, "activity_type") else None
        if kind is not None and kind not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        if kind is None and ev.is_user_annotation():
            continue
        acts.append((ev.start_ns(), ev.end_ns(), ev.device_resource_id(), ev.name()))
    acts.sort()
    return acts


def _busy_us(group: list[tuple[int, int, int, str]]) -> float:
    """The union of the activities' intervals, in µs: device time spent on the call, gaps left out."""
    total, end = 0, None
    for s, e, _, _ in sorted(group):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total / 1e3


def _spans(acts: list[tuple[int, int, int, str]], reps: int) -> tuple[list[float], list[float], int, float]:
    """Per-repetition device busy times and spans in µs, split at the flush kernels; streams used, kernels/call."""
    groups: list[list[tuple[int, int, int, str]]] = []
    current: list[tuple[int, int, int, str]] | None = None
    for a in acts:
        if _FLUSH_KERNEL_HINT in a[3]:
            current = []
            groups.append(current)
        elif current is not None:
            current.append(a)
    groups = [g for g in groups if g][-reps:]
    spans = [(max(e for _, e, _, _ in g) - min(s for s, _, _, _ in g)) / 1e3 for g in groups]
    streams = len({st for g in groups for _, _, st, _ in g})
    per_call = sum(len(g) for g in groups) / len(groups) if groups else 0.0
    return [_busy_us(g) for g in groups], spans, streams, per_call


def _graph_time_us(fn: Callable[..., Any], sets: list[ArgSet], flush: Callable[[], None] | None,
                   device: torch.device, calls: int) -> tuple[float, str]:
    """µs per call from replaying one graph of many calls, each on its own buffers; and how L2 was kept cold.

    With enough distinct buffer sets to cover 4x the L2, the rotation itself keeps every call's data cold
    and the graph holds nothing but the calls. Otherwise a flush precedes each call and the replay time of
    a graph of the flushes alone is subtracted.
    """
    mod = torch.cuda
    l2 = l2_bytes(device)
    per_set = max(1, max(_nbytes(s) for s in sets))
    half = max(calls, math.ceil(4 * l2 / per_set))
    rotate = len(sets) >= 2 * half
    chosen = sets[: 2 * half] if rotate else sets[:calls]
    stream = mod.Stream(device)
    stream.wait_stream(mod.current_stream(device))
    with mod.stream(stream):  # capture needs a side stream and a warm call on it
        for a, kw in chosen:
            fn(*a, **kw)
    mod.current_stream(device).wait_stream(stream)
    mod.synchronize(device)

    def capture(items: list[ArgSet], with_flush: bool, with_calls: bool = True) -> Any:
        g = mod.CUDAGraph()
        with mod.graph(g):
            for a, kw in items:
                if with_flush and flush:
                    flush()
                if with_calls:
                    fn(*a, **kw)
        return g

    def replay(g: Any) -> float:
        g.replay()  # the first replay uploads the graph
        times = []
        for _ in range(7):
            s, e = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
            s.record()
            g.replay()
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e) * 1e3)
        return statistics.median(times)

    if rotate:
        # Two graphs of n and 2n calls: their difference cancels the graph's own launch cost.
        t_half, t_full = replay(capture(chosen[:half], False)), replay(capture(chosen, False))
        return max(0.0, t_full - t_half) / half, f"graph-replay({half} calls difference, rotating buffers)"
    if flush is None:
        return replay(capture(chosen, False)) / len(chosen), f"graph-replay({len(chosen)} calls, warm L2)"
    work, flushes = replay(capture(chosen, True)), replay(capture(chosen, True, with_calls=False))
    return max(0.0, work - flushes) / len(chosen), f"graph-replay({len(chosen)} calls, flush subtracted)"


MAX_TIMED_WARMUP_CALLS = 2000


def warmup_calls(config: TimingConfig, per_call_ms: float) -> int:
    """Calls warm-up makes: `config.warmup`, one to measure a call, then enough to fill `config.warmup_ms`."""
    if config.warmup_ms <= 0:
        return config.warmup + 1
    extra = min(MAX_TIMED_WARMUP_CALLS, math.ceil(config.warmup_ms / max(per_call_ms, 1e-3)))
    return config.warmup + 1 + extra


def timed_reps(config: TimingConfig, per_call_ms: float) -> int:
    """Repetitions to time: `config.reps`, capped at `config.max_timed_ms` of calls, at least `config.min_reps`."""
    fit = math.floor(config.max_timed_ms / max(per_call_ms, 1e-6))
    return max(1, min(config.reps, max(config.min_reps, fit)))


def _warm_up(fn: Callable[..., Any], sets: list[ArgSet], mod: Any, dev: torch.device, config: TimingConfig) -> float:
    """`config.warmup` calls, then more until `config.warmup_ms` of device time has passed; ms of one call."""
    for i in range(config.warmup):
        a, kw = sets[i % len(sets)]
        fn(*a, **kw)
    mod.synchronize(dev)
    start, end = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
    a, kw = sets[0]
    start.record()
    fn(*a, **kw)
    end.record()
    end.synchronize()
    per_call_ms = start.elapsed_time(end)
    if config.warmup_ms <= 0:
        return per_call_ms
    for i in range(warmup_calls(config, per_call_ms) - config.warmup - 1):
        a, kw = sets[i % len(sets)]
        fn(*a, **kw)
    mod.synchronize(dev)
    return per_call_ms


def _timed_reps(fn: Callable[..., Any], sets: list[ArgSet], mod: Any, dev: torch.device, config: TimingConfig,
                reps: int, flush: Callable[[], None] | None) -> tuple[list[float], list[tuple[int, int, int, str]]]:
    """`reps` calls between events (a device profiler around them where the backend has one): each call's
    event time in microseconds, and the device activities the profiler saw."""
    starts = [mod.Event(enable_timing=True) for _ in range(reps)]
    ends = [mod.Event(enable_timing=True) for _ in range(reps)]
    acts: list[tuple[int, int, int, str]] = []
    kind = {"cuda": "CUDA", "xpu": "XPU"}.get(dev.type)
    activities = [getattr(torch.profiler.ProfilerActivity, kind)] if kind else []
    try:
        prof_ctx = torch.profiler.profile(activities=activities) if activities else None
    except Exception:  # noqa: BLE001 - a backend without a device profiler falls back to events
        prof_ctx = None
    if prof_ctx is not None:
        prof_ctx.__enter__()
    try:
        for i in range(reps):
            a, kw = sets[(config.warmup + i) % len(sets)]
            if flush:
                flush()
            starts[i].record()
            fn(*a, **kw)
            ends[i].record()
        mod.synchronize(dev)
    finally:
        if prof_ctx is not None:
            prof_ctx.__exit__(None, None, None)
    if prof_ctx is not None:
        acts = _device_activities(prof_ctx)
    return [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends, strict=True)], acts


def time_callable(fn: Callable[..., Any], arg_sets: Callable[[int], ArgSet], *, device: str | torch.device,
                  config: TimingConfig = TimingConfig(), precision: dict[str, Any] | None = None) -> Timing:
    """Time `fn` on fresh argument sets from the factory `arg_sets(i)`; the Timing says how and how long."""
    dev = torch.device(device)
    if dev.type == "cpu":
        return unavailable("no accelerator: correctness only (Triton interpreter)")
    mod = _device_module(dev)
    base = [arg_sets(i) for i in range(min(4, config.reps))]
    # Graph mode rotates through enough sets to cover 4x the L2; the budget caps them all.
    want = config.reps + config.warmup + (max(2 * config.graph_calls, 256) if config.graph else 0)
    sets = fresh_arg_sets(base, want, config.buffer_budget_bytes)
    flush_bytes = 2 * l2_bytes(dev) if config.flush_l2 else 0
    flush = _flush_fn(dev, flush_bytes, config.flush_mode) if flush_bytes else None

    reps = timed_reps(config, _warm_up(fn, sets, mod, dev, config))
    event_us, acts = _timed_reps(fn, sets, mod, dev, config, reps, flush)
    event_median, _ = _quantiles(event_us)

    busy, spans, streams, per_call = _spans(acts, reps) if acts else ([], [], 0, 0.0)
    names = tuple(sorted({a[3] for a in acts if _FLUSH_KERNEL_HINT not in a[3]}))[:64] if acts else ()
    method, samples = ("profiler-busy", busy) if len(busy) == reps else ("events", event_us)
    median, iqr = _quantiles(samples)
    headline = trimmed_mean(samples)
    statistic = f"trimmed mean ({TRIM:.0%} each end) of {len(samples)} repetitions"
    span_median = _quantiles(spans)[0] if method == "profiler-busy" else None
    graph_us, reason = None, ""
    if config.graph and dev.type == "cuda":
        try:
            graph_us, method = _graph_time_us(fn, sets, flush, dev, config.graph_calls)
            headline, statistic = graph_us, "per call of a replayed graph"
        except Exception as exc:  # noqa: BLE001 - a candidate that cannot be captured is timed eagerly
            reason = f"graph capture failed: {type(exc).__name__}: {exc}"[:300]
    return Timing(
        available=True,
        method=method,
        time_us=headline,
        statistic=statistic,
        median_us=median,
        iqr_us=iqr,
        reps=reps,
        span_median_us=span_median,
        event_median_us=event_median,
        graph_median_us=graph_us,
        launch_bound=headline < LAUNCH_BOUND_US and event_median > 1.5 * max(headline, 1e-9),
        streams=streams,
        kernels_per_call=per_call,
        kernel_names=names,
        fresh_buffers=len(sets),
        l2_flush_bytes=flush_bytes,
        precision=dict(precision or {}),
        device=str(dev),
        reason=reason,
    )

