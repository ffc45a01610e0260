"""GPU: is the evaluator's timer trustworthy? Prints one table; writes JSON beside it.

Measured side by side in one run on the device at hand:
1. ceilings: the runtime's device copy (events over back-to-back 4 GiB copies) and matrix rates;
2. a Triton copy kernel timed by `time_callable` as a share of that copy bandwidth (target 95-100 %);
3. repeatability: the time five repeated evaluations of one kernel report (target: spread under 2 %), for
   the headline (trimmed mean) and, from the same evaluations, for the median of the repetitions;
4. a ~5 µs kernel: graph-replay timing against its profiler kernel duration (target: within 10 %);
5. the same kernel with `triton.testing.do_bench` and with `time_callable`, side by side.
Usage: python bench/bench_timing.py [OUT_DIR]
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

from kernelgenbench.evaluator.ceilings import device_ceilings
from kernelgenbench.evaluator.timing import TimingConfig, time_callable


@triton.jit
def copy_kernel(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)


@triton.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)


def triton_copy(src: torch.Tensor, dst: torch.Tensor) -> None:
    n = src.numel()
    copy_kernel[(triton.cdiv(n, 8192),)](src, dst, n, BLOCK=8192, num_warps=8)


def triton_add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor, block: int = 1024) -> None:
    n = x.numel()
    add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block)


def spread(xs: list[float]) -> float:
    """(max - min) / median."""
    return (max(xs) - min(xs)) / statistics.median(xs)


def repeat_summary(ts: list) -> dict[str, object]:
    """Headlines and medians (µs) of repeated evaluations of one kernel, with their spreads and CVs."""
    hs, ms = [t.time_us for t in ts], [t.median_us for t in ts]
    return {"times_us": hs, "medians_us": ms, "spread": spread(hs), "cv": statistics.pstdev(hs) / statistics.mean(hs),
            "spread_of_medians": spread(ms), "cv_of_medians": statistics.pstdev(ms) / statistics.mean(ms)}


def kernel_us(fn, args, reps: int = 20) -> float:
    """Median of the profiler's kernel durations of `fn` (the 'true' device time of a one-kernel call)."""
    fn(*args)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn(*args)
        torch.cuda.synchronize()
    durs = [(e.end_ns() - e.start_ns()) / 1e3 for e in prof.profiler.kineto_results.events()
            if e.device_type() != torch.autograd.DeviceType.CPU and "add_kernel" in e.name()]
    return statistics.median(durs)


def main(out_dir: Path) -> None:
    dev = torch.device("cuda")
    rows: dict[str, object] = {"device": torch.cuda.get_device_name(dev), "torch": torch.__version__,
                               "triton": triton.__version__}
    ceil = device_ceilings(dev, refresh=True)
    rows["ceilings"] = ceil.to_dict()

    # 2. copy kernel vs measured copy bandwidth (1 GiB each way: far past L2)
    n = (1 << 30) // 4
    def copy_set(i):
        return (torch.randn(n, device=dev), torch.empty(n, device=dev)), {}
    t = time_callable(triton_copy, copy_set, device=dev, config=TimingConfig(reps=20, buffer_budget_bytes=8 << 30))
    copy_share = (2 * n * 4 / (t.time_us * 1e-6)) / ceil.copy_bytes_per_s
    rows["copy"] = {"timing": t.to_dict(), "share_of_copy_bandwidth": copy_share}

    # 3. repeatability: five evaluations of the same kernel on fresh data (64 MiB inputs)
    m = 16 << 20
    def add_set(i):
        return (torch.randn(m, device=dev), torch.randn(m, device=dev), torch.empty(m, device=dev)), {}
    # The default config first, then variants side by side, each five evaluations: the reading flush (L2
    # left clean), a longer warm-up (100 ms; the default is do_bench's 25 ms), the former 50 repetitions, the allocator's cache emptied
    # between evaluations (new physical pages), and the default once more (its own run-to-run variation).
    variants = {"default": ({}, False),
                "read flush": ({"flush_mode": "read"}, False), "warm-up 100 ms": ({"warmup_ms": 100.0}, False),
                "reps 50 (before)": ({"reps": 50}, False), "cache emptied": ({}, True),
                "default, again": ({}, False)}
    rep = {}
    for label, (over, empty) in variants.items():
        ts = []
        for _ in range(5):
            if empty:
                torch.cuda.empty_cache()
            ts.append(time_callable(triton_add, add_set, device=dev, config=TimingConfig(**over)))
        rep[label] = {"config": over, **repeat_summary(ts), "iqrs_us": [t.iqr_us for t in ts],
                      "time_us": statistics.median(t.time_us for t in ts)}
    spread = rep["default"]["spread"]
    rows["repeatability"] = {**rep["default"], "variants": rep}

    # 4. a ~5 µs kernel: graph replay vs profiler kernel duration
    k = 1 << 21  # 24 MB moved: ~5-6 µs at HBM speed
    def small_set(i):
        return (torch.randn(k, device=dev), torch.randn(k, device=dev), torch.empty(k, device=dev)), {}
    tg = time_callable(triton_add, small_set, device=dev, config=TimingConfig(graph=True))
    kus = tg.span_median_us  # the profiler's kernel duration, cold L2, same run
    rows["small_kernel"] = {"timing": tg.to_dict(), "profiler_kernel_us": kus,
                            "profiler_kernel_us_warm_l2": kernel_us(triton_add, small_set(0)[0]),
                            "graph_vs_profiler": (tg.graph_median_us or float("nan")) / kus}

    # 5. do_bench vs time_callable on the 64 MiB add
    a = add_set(0)[0]
    db = triton.testing.do_bench(lambda: triton_add(*a), return_mode="median")
    tc = time_callable(triton_add, add_set, device=dev, config=TimingConfig())
    rows["do_bench"] = {"do_bench_us": db * 1e3, "time_callable_us": tc.time_us,
                        "time_callable_median_us": tc.median_us, "time_callable_events_us": tc.event_median_us}

    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "bench_timing.json").write_text(json.dumps(rows, indent=1))
    print(f"device: {rows['device']}  torch {rows['torch']}  triton {rows['triton']}")
    print(f"copy bandwidth (runtime copy, events): {ceil.copy_bytes_per_s / 1e12:.3f} TB/s; "
          f"matrix bf16 {ceil.matrix_flops_per_s['bfloat16'] / 1e12:.0f} TFLOP/s, "
          f"fp32 {ceil.matrix_flops_per_s['float32'] / 1e12:.1f} TFLOP/s")
    print(f"{'check':44s} {'value':>12s} {'target':>12s}")
    print(f"{'Triton copy share of copy bandwidth':44s} {copy_share:12.3f} {'0.95-1.00':>12s}")
    print(f"{'spread of 5 repeated evaluations':44s} {spread:12.4f} {'< 0.02':>12s}")
    for label, r in rep.items():
        print(f"{'  ' + label:44s} {r['spread']:12.4f}   times " + " ".join(f"{m:.2f}" for m in r["times_us"])
              + f" us; their medians: spread {r['spread_of_medians']:.4f}, "
              + " ".join(f"{m:.2f}" for m in r["medians_us"]) + "; IQRs " + " ".join(f"{q:.2f}" for q in r["iqrs_us"]))
    print(f"{'small kernel graph / profiler duration':44s} {rows['small_kernel']['graph_vs_profiler']:12.3f} "
          f"{'0.90-1.10':>12s}")
    print(f"{'  graph us / profiler kernel us (cold, warm)':44s} {tg.graph_median_us:6.2f} / {kus:5.2f}, "
          f"{rows['small_kernel']['profiler_kernel_us_warm_l2']:5.2f}  [{tg.method}]")
    print(f"{'64 MiB add: time_callable us (headline)':44s} {tc.time_us:12.2f}")
    print(f"{'64 MiB add: time_callable span median us':44s} {tc.median_us:12.2f}")
    print(f"{'64 MiB add: time_callable events us':44s} {tc.event_median_us:12.2f}")
    print(f"{'64 MiB add: do_bench median us':44s} {db * 1e3:12.2f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("bench/results"))
