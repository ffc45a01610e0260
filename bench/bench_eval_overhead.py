"""GPU: the evaluator's own cost per candidate, and what parallel workers buy on a whole config.

    python bench/bench_eval_overhead.py [OUT_DIR] [--task cublas/cublasSaxpy_v2] [--repeats 3]

1. One candidate of a task with 5 workloads (3 correctness, 2 performance), evaluated `repeats + 1`
   times: the first run pays Triton's compile and measures the (then cached) baselines; the others are
   what an RL loop pays per sample. Overhead = the candidate's wall time minus its kernels' device time,
   counted as every call made on the performance workloads (warm-up, timed repetitions, correctness
   rounds) at the timed median; the small correctness workloads' kernels are not subtracted, so the
   overhead is if anything overstated. Target: under 1 s excluding Triton's compile, which in a warm run
   is each kernel variant loaded from Triton's disk cache into the fresh worker (phase 'compile', timed
   by the launch hook); both figures are printed.
2. Every example solution, evaluated with 1 worker and then with the automatic number of workers (two per
   device), warm caches both times: the wall time of each and their ratio.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "examples" / "tasks.jsonl"
SOLUTIONS = ROOT / "examples" / "solutions"


def _kernel_seconds(result, rounds: int, config) -> float:
    """Device time of every call made on the performance workloads, at the timed headline."""
    from kernelgenbench.evaluator.timing import warmup_calls

    total = 0.0
    for w in result.workloads:
        t = w.timing or {}
        if t.get("available") and t.get("time_us"):
            us = t["time_us"]
            total += us * 1e-6 * (warmup_calls(config, us * 1e-3) + t["reps"] + rounds)
    return total


def one_candidate(task_id: str, repeats: int, rounds: int) -> dict:
    """Evaluate one example candidate repeatedly; per run: wall, elapsed, kernel time, overhead."""
    import kernelgenbench
    from kernelgenbench.evaluator.runner import EvalConfig
    from kernelgenbench.evaluator.solutions import task_file_name
    from kernelgenbench.evaluator.timing import TimingConfig

    code = (SOLUTIONS / task_file_name(task_id)).read_text()
    timing = {"warmup": 5, "reps": 50}
    runs = []
    for i in range(repeats + 1):
        t0 = time.perf_counter()
        [res] = kernelgenbench.evaluate({task_id: code}, dataset=TASKS, task_ids=[task_id], device="auto",
                                        rounds=rounds, workers=1, timing=timing)
        wall = time.perf_counter() - t0
        checked = min(rounds, EvalConfig().performance_rounds)  # rounds a performance workload is checked
        kern = _kernel_seconds(res, checked, TimingConfig(**timing))
        compile_s = res.phases_s.get("compile", 0.0)
        runs.append({"run": i, "status": res.status.value, "wall_s": wall, "candidate_elapsed_s": res.elapsed_s,
                     "kernel_s": kern, "compile_s": compile_s, "overhead_s": res.elapsed_s - kern,
                     "overhead_excl_compile_s": res.elapsed_s - kern - compile_s, "phases_s": res.phases_s,
                     "workloads": len(res.workloads),
                     "performance_times_us": [w.timing.get("time_us") for w in res.workloads
                                                if w.purpose == "performance" and w.timing]})
    warm = [r["overhead_s"] for r in runs[1:]]
    net = [r["overhead_excl_compile_s"] for r in runs[1:]]
    return {"task_id": task_id, "rounds": rounds, "runs": runs, "warm_overhead_median_s": statistics.median(warm),
            "warm_overhead_excl_compile_median_s": statistics.median(net)}


def whole_config(rounds: int, warm: bool) -> dict:
    """Every example, 1 worker vs automatic workers (caches warm: from a first pass, or an earlier run)."""
    import kernelgenbench

    if warm:
        kernelgenbench.evaluate(SOLUTIONS, dataset=TASKS, device="auto", rounds=rounds, workers=1)
    out = {}
    for label, workers in (("workers=1", 1), ("workers=auto", 0)):
        t0 = time.perf_counter()
        res = kernelgenbench.evaluate(SOLUTIONS, dataset=TASKS, device="auto", rounds=rounds, workers=workers)
        out[label] = {"wall_s": time.perf_counter() - t0, "candidates": len(res),
                      "passed": sum(r.passed for r in res)}
    out["speedup"] = out["workers=1"]["wall_s"] / out["workers=auto"]["wall_s"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", nargs="?", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--task", default="cublas/cublasSaxpy_v2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-config", action="store_true", help="only the one-candidate part")
    ap.add_argument("--no-warm", action="store_true",
                    help="skip the warming pass (Triton's and the baselines' caches are already warm)")
    args = ap.parse_args()
    import torch

    from kernelgenbench.evaluator.runner import auto_workers

    rows = {"device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu",
            "torch": torch.__version__, "auto_workers": auto_workers([f"cuda:{i}" for i in
                                                                     range(max(1, torch.cuda.device_count()))])}
    rows["one_candidate"] = one_candidate(args.task, args.repeats, args.rounds)
    if not args.skip_config:
        rows["whole_config"] = whole_config(args.rounds, warm=not args.no_warm)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "bench_eval_overhead.json").write_text(json.dumps(rows, indent=1))
    oc = rows["one_candidate"]
    print(f"device: {rows['device']}  torch {rows['torch']}")
    print(f"{oc['task_id']} ({oc['runs'][0]['workloads']} workloads, {oc['rounds']} rounds each)")
    print(f"{'run':>4} {'status':>8} {'wall s':>8} {'cand s':>8} {'kernel s':>9} {'compile s':>10} {'overhead s':>11} "
          f"{'excl. compile':>14}  phases (s)")
    for r in oc["runs"]:
        phases = " ".join(f"{k}={v:.2f}" for k, v in r["phases_s"].items())
        print(f"{r['run']:>4} {r['status']:>8} {r['wall_s']:8.3f} {r['candidate_elapsed_s']:8.3f} "
              f"{r['kernel_s']:9.4f} {r['compile_s']:10.3f} {r['overhead_s']:11.3f} {r['overhead_excl_compile_s']:14.3f}"
              f"  {phases}")
    print(f"warm overhead per candidate (median): {oc['warm_overhead_median_s']:.3f} s; excluding Triton's compile "
          f"(cache loads): {oc['warm_overhead_excl_compile_median_s']:.3f} s  (target < 1 s excluding compile)")
    if "whole_config" in rows:
        wc = rows["whole_config"]
        print(f"all examples: 1 worker {wc['workers=1']['wall_s']:.2f} s, auto ({rows['auto_workers']}) "
              f"{wc['workers=auto']['wall_s']:.2f} s, ratio {wc['speedup']:.2f}x; "
              f"passed {wc['workers=auto']['passed']}/{wc['workers=auto']['candidates']}")


if __name__ == "__main__":
    main()
