"""Where the run-to-run variation of one timed kernel comes from, measured side by side in one run.

On the 64 MiB add of bench_timing.py (here in 4096-element blocks, as recorded):
1. one long series of flushed repetitions in one setup, with the histogram of their durations and the
   variation from one window to the next, for windows of 50 and of 200 repetitions (the former and the
   present default count) and three statistics of the window: median, 10 %-trimmed mean (the
   evaluator's headline) and mean;
2. five `time_callable` evaluations with 50, 200 (default) and 1250 repetitions (~100 ms timed,
   do_bench's default), each giving the spread of their headlines and of their medians.
The first run (bench/results/README.md) found the durations in two modes about 3 % apart in nearly equal
shares, which makes the median of 50 jump between them; the setup (fresh flush buffer, fresh argument
sets) made no difference and was dropped from the script. It prints one table; `--out DIR` also writes
the figures as JSON. GPU only:
    python3 bench/bench_timing_noise.py [--out DIR]
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
from pathlib import Path

import torch
from bench_timing import repeat_summary, spread, triton_add

from kernelgenbench.evaluator import timing
from kernelgenbench.evaluator.timing import TimingConfig, time_callable, trimmed_mean

add_4096 = functools.partial(triton_add, block=4096)


def gpu_state() -> str:
    """SM and memory clocks, power, temperature and active clock-limit reasons, as nvidia-smi reports them."""
    q = "clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active"
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20).stdout.strip()
    except Exception as exc:  # noqa: BLE001 - a missing nvidia-smi only loses this line
        return f"nvidia-smi unavailable: {exc}"


def long_series(dev: torch.device, sets: list, reps: int) -> list[float]:
    """Profiler kernel durations (µs) of `reps` calls, each after a writing flush, cycling over `sets`."""
    flush = timing._flush_fn(dev, 2 * timing.l2_bytes(dev), "write")
    for a, _ in sets[:20]:
        add_4096(*a)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for i in range(reps):
            flush()
            add_4096(*sets[i % len(sets)][0])
        torch.cuda.synchronize()
    acts = timing._device_activities(prof)
    return [(e - s) / 1e3 for s, e, _, name in acts if "add_kernel" in name]


def windows(series: list[float], w: int, stat) -> dict[str, float]:
    """Spread and coefficient of variation of `stat` over consecutive windows of `w` repetitions."""
    xs = [stat(series[i:i + w]) for i in range(0, len(series) - w + 1, w)]
    return {"spread": spread(xs), "cv": statistics.pstdev(xs) / statistics.mean(xs)}


def five(config: TimingConfig, add_set, dev: torch.device) -> dict[str, object]:
    """Headlines and medians (µs) of five `time_callable` evaluations, with their spreads."""
    return repeat_summary([time_callable(add_4096, add_set, device=dev, config=config) for _ in range(5)])


def main() -> None:
    """Run every measurement and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    dev = torch.device("cuda")
    m = 16 << 20

    def add_set(i):
        return (torch.randn(m, device=dev), torch.randn(m, device=dev), torch.empty(m, device=dev)), {}

    rows: dict[str, object] = {"device": torch.cuda.get_device_name(dev), "gpu_state_start": gpu_state()}
    sets = timing.fresh_arg_sets([add_set(i) for i in range(4)], 42, 8 << 30)
    series = long_series(dev, sets, 20000)
    del sets
    hist: dict[float, int] = {}
    for x in series:
        hist[round(x * 2) / 2] = hist.get(round(x * 2) / 2, 0) + 1
    stats = {"median": statistics.median, "trimmed mean": trimmed_mean, "mean": statistics.fmean}
    rows["series"] = {"reps": len(series), "median_us": statistics.median(series),
                      "trimmed_mean_us": trimmed_mean(series),
                      "histogram_0.5us": {f"{k:.1f}": v for k, v in sorted(hist.items())},
                      "windows": {f"{w}-rep windows, {name}": windows(series, w, f)
                                  for w in (50, 200) for name, f in stats.items()}}
    rows["gpu_state_after_series"] = gpu_state()
    rows["evaluations"] = {"50 reps": five(TimingConfig(reps=50), add_set, dev),
                           "200 reps (default)": five(TimingConfig(), add_set, dev),
                           "1250 reps (~100 ms)": five(TimingConfig(reps=1250), add_set, dev),
                           "200 reps, again": five(TimingConfig(), add_set, dev)}
    rows["gpu_state_end"] = gpu_state()

    s = rows["series"]
    print(f"device: {rows['device']}")
    print(f"gpu state start / after series / end:\n  {rows['gpu_state_start']}\n  {rows['gpu_state_after_series']}\n"
          f"  {rows['gpu_state_end']}")
    print(f"long series: {s['reps']} reps, median {s['median_us']:.2f} us, trimmed mean {s['trimmed_mean_us']:.2f} us")
    share = {k: v for k, v in s["histogram_0.5us"].items() if v >= len(series) // 100}
    print("  histogram (us: reps, bins holding 1 % or more): " + ", ".join(f"{k}: {v}" for k, v in share.items()))
    for name, r in s["windows"].items():
        print(f"  {name:28s} spread {r['spread']:.4f}  cv {r['cv']:.4f}")
    print(f"{'five evaluations':22s} {'spread':>8s} {'cv':>8s} {'spread':>8s} {'cv':>8s}")
    print(f"{'':22s} {'(headline)':>17s} {'(median)':>17s}   headlines (us)")
    for k, v in rows["evaluations"].items():
        print(f"{k:22s} {v['spread']:8.4f} {v['cv']:8.4f} {v['spread_of_medians']:8.4f} {v['cv_of_medians']:8.4f}   "
              + " ".join(f"{x:.2f}" for x in v["times_us"]))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "bench_timing_noise.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
