"""GPU: do the times `time_callable` reports agree with Nsight Compute's kernel duration? (issue 18)

For a spread of kernels (~1 µs to ~5 ms; memory- and compute-bound; native ATen and Triton) it measures:
- kgb: `time_callable` with the worker's default `TimingConfig` (writing L2 flush, profiler span, trimmed mean);
- alternatives, in this process, on the same argument sets (10 %-trimmed mean of their repetitions):
  ksum    writing flush, per call the SUM of the call's device-kernel durations instead of the span;
  read    reading flush (L2 left clean: the `flush_mode="read"` option);
  drain   writing flush, then a read kernel over a separate L2-sized buffer that evicts the dirty lines
          (their write-back happens before the timed call instead of during it);
  idle    writing flush, host synchronize and 50 µs idle before the call (does an idle L2 drain?);
- ncu's `gpu__time_duration.sum` of the same call, median of 5 calls after 3 warm-ups, in a child process
  under `ncu --clock-control none`:
  clean   `--cache-control all` (ncu flushes and invalidates caches before every kernel);
  flush   `--cache-control none`, the child running kgb's writing flush kernel before every call.
  Every kernel is profiled; the child's flush kernels (named kgb_l2_flush) split the records into calls, and
  a side file says which calls belong to which case, so calls with several kernels are summed.
kgb / ncu-flush is the method's bias under the same cache state; ncu-flush / ncu-clean is the cache state's.
The summary gives, per method and ncu column, the median ratio (bias) and its min, max and IQR (error).
The ncu runs come first (60 % of the budget), while this process holds no device context. One ncu run per
chunk of cases, each with a timeout (a failure costs its chunk, whose cases are then retried
one by one while the budget lasts); rows past the time budget are skipped and marked.
Usage (GPU, repo root):  python3 bench/bench_timing_vs_ncu.py OUT_DIR [--budget-s 270] [--ncu PATH] [--only a,b]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NCU_DEFAULT = "/usr/local/cuda/bin/ncu"
METRIC = "gpu__time_duration.sum"
FLUSH_NAME = "kgb_l2_flush"
NCU_WARMUP, NCU_CALLS = 3, 5
ALT_REPS = 100
NCU_SHARE = 0.6  # of the time budget, for the ncu runs (which come first)
METHODS = ("kgb", "ksum", "read", "drain", "idle")
NCU_COLUMNS = ("ncu_clean", "ncu_flush")
RUNS: list[dict[str, Any]] = []  # what each ncu run did, for the JSON (its scratch files stay out of OUT)


@dataclass(frozen=True)
class Case:
    """One kernel at one size: `make(seed, dev)` gives (args, kwargs) for `call`, a name from FAMILIES."""

    id: str
    family: str
    size: str
    params: tuple


def _cases() -> list[Case]:
    """The spread: sizes chosen for ~1 µs to ~5 ms on an H200."""
    out = []
    for n in (1 << 12, 1 << 20, 1 << 24, 1 << 27):
        out.append(Case(f"add_{n}", "torch.add", f"2^{n.bit_length() - 1} f32", (n,)))
    for n in (1 << 16, 1 << 22, 1 << 25, 1 << 26):
        out.append(Case(f"sum_{n}", "torch.sum", f"2^{n.bit_length() - 1} f32", (n,)))
    for n in (1 << 16, 1 << 26):
        out.append(Case(f"copy_{n}", "copy_", f"2^{n.bit_length() - 1} f32", (n,)))
    for m, dt in ((256, "float32"), (1024, "bfloat16"), (4096, "bfloat16"), (8192, "bfloat16"), (5120, "float32")):
        out.append(Case(f"mm_{m}_{dt}", "torch.mm", f"{m}^3 {dt}", (m, dt)))
    for n in (1 << 12, 1 << 20, 1 << 24, 1 << 27):
        out.append(Case(f"tadd_{n}", "triton add", f"2^{n.bit_length() - 1} f32", (n,)))
    for rows, cols in ((64, 256), (4096, 4096), (64, 1 << 20)):
        out.append(Case(f"tsum_{rows}x{cols}", "triton row sum", f"{rows}x{cols} f32", (rows, cols)))
    return out


CASES = {c.id: c for c in _cases()}


def _solution(name: str, attr: str) -> Callable[..., Any]:
    """A function from examples/solutions/ (Triton reads a kernel's source from its file)."""
    path = ROOT / "examples" / "solutions" / name
    spec = importlib.util.spec_from_file_location(f"kgb_sol_{path.stem.replace('.', '_')}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, attr)


def build(case: Case, dev: Any) -> tuple[Callable[..., Any], Callable[[int], tuple[list, dict]]]:
    """(fn, arg_sets) for a case, as the worker hands them to `time_callable`."""
    import torch

    def rand(seed: int, *shape: int, dtype: Any = torch.float32) -> Any:
        g = torch.Generator(device=dev).manual_seed(seed)
        return torch.randn(*shape, generator=g, device=dev, dtype=dtype)

    f, p = case.family, case.params
    if f in ("torch.add", "triton add"):
        fn = torch.add if f == "torch.add" else _solution("aten__add.Tensor.py", "add_Tensor")
        return fn, lambda s: ([rand(s, p[0]), rand(s + 99, p[0])], {})
    if f == "torch.sum":
        return torch.sum, lambda s: ([rand(s, p[0])], {})
    if f == "copy_":
        return (lambda dst, src: dst.copy_(src)), lambda s: ([torch.empty(p[0], device=dev), rand(s, p[0])], {})
    if f == "torch.mm":
        dt = getattr(torch, p[1])
        return torch.mm, lambda s: ([rand(s, p[0], p[0], dtype=dt), rand(s + 99, p[0], p[0], dtype=dt)], {})
    if f == "triton row sum":
        fn = _solution("aten__sum.dim_IntList.py", "sum_dim_IntList")
        return fn, lambda s: ([rand(s, *p), [1]], {})
    raise ValueError(f"unknown family {f!r}")


# ---------------------------------------------------------------- pure helpers (tested on CPU)

def ncu_command(ncu: str, cache: str, log: Path, child: Sequence[str]) -> list[str]:
    """The ncu command line profiling every kernel of `child` for its duration only, clocks left free."""
    if cache not in ("all", "none"):
        raise ValueError(f"cache must be 'all' or 'none', not {cache!r}")
    return [ncu, "--target-processes", "all", "--metrics", METRIC, "--cache-control", cache,
            "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
            "--log-file", str(log), *child]


def parse_ncu_csv(text: str) -> list[tuple[str, float]]:
    """(kernel name, duration in µs) per profiled kernel, in launch order, from ncu's raw CSV page (base units: ns)."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    head = rows[0]
    if "ID" not in head or METRIC not in head:
        return []
    name_col = next((c for c in ("Kernel Name", "Function Name", "Name") if c in head), None)
    if name_col is None:
        return []
    i_id, i_name, i_val = head.index("ID"), head.index(name_col), head.index(METRIC)
    units = rows[1][i_val] if len(rows) > 1 and not rows[1][i_id].strip().isdigit() else "ns"
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6,
             "second": 1e6}.get(units.strip(), 1e-3)
    out = []
    for r in rows[1:]:
        if len(r) <= i_val or not r[i_id].strip().isdigit():
            continue
        try:
            out.append((int(r[i_id]), r[i_name], float(r[i_val].replace(",", "")) * scale))
        except ValueError:
            continue
    return [(name, us) for _, name, us in sorted(out)]


def measured_calls(flushes: int) -> dict[str, int]:
    """Indices [first, last) of a case's measured calls once the child has launched `flushes` flush kernels
    in all, the case's terminator included: the NCU_CALLS calls before the terminator."""
    return {"first": flushes - 1 - NCU_CALLS, "last": flushes - 1}


def calls_from_kernels(kernels: list[tuple[str, float]]) -> list[float]:
    """Per call, the summed duration (µs) of the kernels between one flush kernel and the next."""
    groups: list[float] = []
    started = False
    for name, us in kernels:
        if FLUSH_NAME in name:
            groups.append(0.0)
            started = True
        elif started:
            groups[-1] += us
    return groups


def ncu_case_times(kernels: list[tuple[str, float]], plan: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per case of the child's plan ({"case", "first", "last"} call indices), the median ncu time of its calls."""
    calls = calls_from_kernels(kernels)
    out = {}
    for p in plan:
        got = calls[p["first"]:p["last"]]
        if len(got) == p["last"] - p["first"] and got:
            out[p["case"]] = {"us": statistics.median(got), "calls_us": got}
        else:
            out[p["case"]] = {"us": None, "error": f"{len(got)} of {p['last'] - p['first']} calls in ncu's report"}
    return out


def _trimmed(xs: list[float], trim: float = 0.1) -> float:
    ys = sorted(xs)
    k = int(len(ys) * trim)
    return statistics.fmean(ys[k:len(ys) - k])


def _pos(v: Any) -> bool:
    return isinstance(v, int | float) and math.isfinite(v) and v > 0


def ratio_summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per 'method/ncu column' (and the cache-state ratio ncu_flush/ncu_clean): median, min, max, IQR, n."""
    pairs = [(m, c) for m in METHODS for c in NCU_COLUMNS] + [("ncu_flush", "ncu_clean")]
    out = {}
    for num, den in pairs:
        rs = [r[num] / r[den] for r in rows if _pos(r.get(num)) and _pos(r.get(den))]
        if not rs:
            continue
        q = statistics.quantiles(rs, n=4, method="inclusive") if len(rs) >= 2 else [rs[0]] * 3
        out[f"{num}/{den}"] = {"median": statistics.median(rs), "min": min(rs), "max": max(rs),
                               "iqr": q[2] - q[0], "n": len(rs)}
    return out


def done_when(rows: list[dict[str, Any]], floor_us: float = 10.0,
              band: tuple[float, float] = (0.97, 1.03)) -> dict[str, Any]:
    """Issue 18's test: kgb / ncu (same writing flush) for every kernel of at least `floor_us`, in `band` or not."""
    out = [{"case": r.get("case"), "ncu_us": r["ncu_flush"], "kgb_us": r["kgb"], "ratio": r["kgb"] / r["ncu_flush"],
            "in_band": band[0] <= r["kgb"] / r["ncu_flush"] <= band[1]}
           for r in rows if _pos(r.get("ncu_flush")) and _pos(r.get("kgb")) and r["ncu_flush"] >= floor_us]
    return {"band": band, "floor_us": floor_us, "kernels": out, "in_band": sum(k["in_band"] for k in out)}


def format_table(rows: list[dict[str, Any]], summary: dict[str, dict[str, Any]]) -> str:
    """The printed table: one line per case, then the ratio summary."""
    def f(v: Any, w: int = 9, p: int = 2) -> str:
        return f"{v:>{w}.{p}f}" if isinstance(v, int | float) else f"{'-':>{w}}"

    cols = list(METHODS) + list(NCU_COLUMNS)
    head = f"{'kernel':<15}{'size':<18}" + "".join(f"{c:>10}" for c in cols)
    head += f"{'kgb/flush':>10}{'kgb/clean':>10}{'ksum/fl':>10}{'drain/fl':>10}{'fl/clean':>10}  note"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = f"{r['family']:<15}{r['size']:<18}" + "".join(" " + f(r.get(c)) for c in cols)
        for a, b in (("kgb", "ncu_flush"), ("kgb", "ncu_clean"), ("ksum", "ncu_flush"), ("drain", "ncu_flush"),
                     ("ncu_flush", "ncu_clean")):
            line += " " + f(r[a] / r[b] if _pos(r.get(a)) and _pos(r.get(b)) else None, 9, 3)
        lines.append(line + ("  " + r["note"] if r.get("note") else ""))
    lines.append("")
    lines.append(f"{'ratio':<24}{'median':>8}{'min':>8}{'max':>8}{'IQR':>8}{'n':>4}")
    for k, s in summary.items():
        lines.append(f"{k:<24}{s['median']:>8.3f}{s['min']:>8.3f}{s['max']:>8.3f}{s['iqr']:>8.3f}{s['n']:>4}")
    return "\n".join(lines)


def chunks(ids: list[str], size: int) -> list[list[str]]:
    """Case ids in chunks of `size`, for one ncu run each."""
    return [ids[i:i + size] for i in range(0, len(ids), size)]


# ---------------------------------------------------------------- GPU: in-process timings

def _alt_loop(fn: Callable[..., Any], sets: list, pre: Callable[[], None], reps: int) -> tuple[float, float]:
    """Trimmed means (µs) of the per-call span and of the per-call kernel sum, `pre` before every call."""
    import torch

    from kernelgenbench.evaluator import timing

    for a, kw in sets[:3]:
        pre()
        fn(*a, **kw)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for i in range(reps):
            a, kw = sets[i % len(sets)]
            pre()
            fn(*a, **kw)
        torch.cuda.synchronize()
    acts = timing._device_activities(prof)
    _, spans, _, _ = timing._spans(acts, reps)
    groups: list[float] = []
    for s, e, _, name in acts:
        if FLUSH_NAME in name:
            groups.append(0.0)
        elif groups:
            groups[-1] += (e - s) / 1e3
    ksums = [g for g in groups if g > 0][-reps:]
    return (_trimmed(spans) if spans else float("nan")), (_trimmed(ksums) if ksums else float("nan"))


def time_in_process(case: Case) -> dict[str, Any]:
    """kgb's `time_callable` (worker defaults) and the alternative methods, for one case."""
    import torch

    from kernelgenbench.evaluator import timing
    from kernelgenbench.evaluator.timing import TimingConfig, time_callable

    dev = torch.device("cuda")
    fn, arg_sets = build(case, dev)
    t = time_callable(fn, arg_sets, device=dev, config=TimingConfig())
    row: dict[str, Any] = {"kgb": t.time_us, "kgb_method": t.method, "kgb_median": t.median_us,
                           "kgb_event_median": t.event_median_us, "kgb_reps": t.reps,
                           "kernels_per_call": t.kernels_per_call}
    l2 = timing.l2_bytes(dev)
    per_call_ms = max((t.time_us or 1.0) / 1e3, 1e-3)
    reps = max(10, min(ALT_REPS, int(300 / per_call_ms)))
    sets = timing.fresh_arg_sets([arg_sets(i) for i in range(4)], reps, 4 << 30)
    wflush = timing._flush_fn(dev, 2 * l2, "write")
    rflush = timing._flush_fn(dev, 2 * l2, "read")
    drain = timing._flush_fn(dev, l2, "read")  # a separate L2-sized buffer: reading it evicts the dirty lines

    def idle() -> None:
        wflush()
        torch.cuda.synchronize()
        time.sleep(50e-6)

    def write_then_drain() -> None:
        wflush()
        drain()

    # span_w repeats kgb's method in this loop: it should match kgb (a check on the loop, not a method).
    row["span_w"], row["ksum"] = _alt_loop(fn, sets, wflush, reps)
    row["read"], _ = _alt_loop(fn, sets, rflush, reps)
    row["drain"], _ = _alt_loop(fn, sets, write_then_drain, reps)
    row["idle"], _ = _alt_loop(fn, sets, idle, reps)
    row["alt_reps"] = reps
    del sets
    torch.cuda.empty_cache()
    return row


# ---------------------------------------------------------------- GPU: the ncu child and its runs

def child_main(ids: list[str], plan_path: Path) -> None:
    """Run under ncu: per case, 3 warm-up and 5 measured calls, each after kgb's writing flush, then one more
    flush so that the next case's setup kernels fall outside every measured call; writes the call plan."""
    import torch

    from kernelgenbench.evaluator import timing

    dev = torch.device("cuda")
    flush = timing._flush_fn(dev, 2 * timing.l2_bytes(dev), "write")
    plan, calls = [], 0
    for cid in ids:
        fn, arg_sets = build(CASES[cid], dev)
        sets = [arg_sets(i) for i in range(2)]
        for i in range(NCU_WARMUP + NCU_CALLS):
            a, kw = sets[i % len(sets)]
            flush()
            calls += 1
            fn(*a, **kw)
        flush()  # the terminator: what follows belongs to no measured call
        calls += 1
        torch.cuda.synchronize()
        plan.append({"case": cid, **measured_calls(calls)})
        plan_path.write_text(json.dumps(plan))  # written as it goes: a crash keeps the finished cases
        del sets
        torch.cuda.empty_cache()


def run_ncu(ncu: str, cache: str, ids: list[str], work: Path, timeout_s: float) -> dict[str, dict[str, Any]]:
    """One ncu run of the child over `ids`; per case its median ncu time (or an error)."""
    tag = f"{cache}_{ids[0]}_{len(ids)}"
    log, plan_path = work / f"ncu_{tag}.csv", work / f"plan_{tag}.json"
    child = [sys.executable, str(Path(__file__).resolve()), "--child", ",".join(ids), "--plan", str(plan_path)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    out, err = "", ""
    try:
        # A session of its own: on timeout the whole group goes (ncu and the python it started).
        p = subprocess.Popen(ncu_command(ncu, cache, log, child), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env, cwd=ROOT, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout_s)
            err = "" if p.returncode == 0 else f"rc={p.returncode}: {out[-400:]}"
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            err = f"timeout after {timeout_s:.0f}s"
    except OSError as exc:
        err = f"{type(exc).__name__}: {exc}"
    (work / f"out_{tag}.txt").write_text(out or "")
    RUNS.append({"tag": tag, "error": err, "output_tail": (out or "")[-1500:]})
    plan = json.loads(plan_path.read_text()) if plan_path.exists() else []
    kernels = parse_ncu_csv(log.read_text(errors="replace")) if log.exists() else []
    kernels = kernels or parse_ncu_csv(out or "")  # in case this ncu prints its report to stdout anyway
    got = ncu_case_times(kernels, plan) if plan and kernels else {}
    RUNS[-1].update(kernels=len(kernels), cases_planned=len(plan), first_kernels=kernels[:12])
    for cid in ids:
        if cid not in got or got[cid]["us"] is None:
            got[cid] = {"us": None, "error": (err or got.get(cid, {}).get("error") or "no ncu records")}
    return got


def ncu_all(ncu: str, ids: list[str], work: Path, deadline: float, chunk: int) -> dict[str, dict[str, Any]]:
    """ncu-clean and ncu-flush times per case: chunked runs, failed chunks retried case by case, within a deadline."""
    res: dict[str, dict[str, Any]] = {cid: {} for cid in ids}
    for cache, col in (("all", "ncu_clean"), ("none", "ncu_flush")):
        measured = 0
        for part in chunks(ids, chunk):
            left = deadline - time.monotonic()
            if left < 20:
                for cid in part:
                    res[cid][col] = {"us": None, "error": "skipped: time budget"}
                continue
            t = time.monotonic()
            got = run_ncu(ncu, cache, part, work, min(120.0, left))
            print(f"ncu --cache-control {cache} over {len(part)} cases: {time.monotonic() - t:.0f}s, "
                  f"{sum(g['us'] is not None for g in got.values())} measured", flush=True)
            measured += sum(g["us"] is not None for g in got.values())
            _retry_alone(ncu, cache, part, got, work, deadline, measured)
            for cid in part:
                res[cid][col] = got[cid]
    return res


def _retry_alone(ncu: str, cache: str, part: list[str], got: dict[str, dict[str, Any]], work: Path,
                 deadline: float, measured: int) -> None:
    """Rerun a failed chunk's unmeasured cases one by one, so that one bad case costs only its row; stop after
    two failures in a row while nothing at all was measured (ncu itself is broken, not a case)."""
    if len(part) < 2:
        return
    failures = 0
    for cid in [c for c in part if got[c]["us"] is None]:
        left = deadline - time.monotonic()
        if left < 20 or (failures >= 2 and measured == 0):
            break
        got[cid] = run_ncu(ncu, cache, [cid], work, min(60.0, left))[cid]
        failures = failures + 1 if got[cid]["us"] is None else 0
        measured += got[cid]["us"] is not None


def gpu_state() -> str:
    """nvidia-smi's clocks, power and temperature line (or why not)."""
    q = "name,clocks.sm,clocks.mem,power.draw,temperature.gpu"
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20).stdout.strip()
    except Exception as exc:  # noqa: BLE001 - a missing nvidia-smi only loses this line
        return f"nvidia-smi unavailable: {exc}"


def _row(c: Case, ncu_res: dict[str, dict[str, Any]], deadline: float) -> dict[str, Any]:
    """One table row: the in-process timings (unless past the deadline) beside the case's ncu times."""
    row: dict[str, Any] = {"case": c.id, "family": c.family, "size": c.size}
    if time.monotonic() > deadline - 5:
        row["note"] = "in-process skipped: time budget"
    else:
        try:
            row.update(time_in_process(c))
        except Exception as exc:  # noqa: BLE001 - one case's failure loses only its row
            row["note"] = f"in-process failed: {type(exc).__name__}: {exc}"[:200]
    for col, r in ncu_res.items():
        row[col] = r["us"]
        row[f"{col}_calls"] = r.get("calls_us")
        if r.get("error"):
            row["note"] = (row.get("note", "") + f" {col}: {r['error']}").strip()[:300]
    print(f"{c.id}: " + ", ".join(f"{k}={row.get(k)}" for k in (*METHODS, *NCU_COLUMNS)), flush=True)
    return row


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments; run as the child under ncu, or as the parent that times, profiles and reports."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("out", nargs="?", type=Path, help="output folder for timing_vs_ncu.json (its only file)")
    ap.add_argument("--budget-s", type=float, default=270.0, help="total wall-clock budget (rows past it are skipped)")
    ap.add_argument("--ncu", default=NCU_DEFAULT, help="ncu executable")
    ap.add_argument("--only", default="", help="comma-separated case ids (default: all): " + ",".join(CASES))
    ap.add_argument("--chunk", type=int, default=11, help="cases per ncu run")
    ap.add_argument("--work", type=Path, default=Path("/tmp/kgb-ncu"), help="scratch folder for ncu's files")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    ap.add_argument("--plan", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child_main(args.child.split(","), args.plan)
        return 0
    if args.out is None:
        ap.error("OUT folder required")
    t0 = time.monotonic()
    deadline = t0 + args.budget_s
    ids = [c for c in args.only.split(",") if c] or list(CASES)
    unknown = [c for c in ids if c not in CASES]
    if unknown:
        ap.error(f"unknown cases {unknown}")
    args.out.mkdir(parents=True, exist_ok=True)
    state = {"before": gpu_state()}
    print(state["before"], flush=True)
    # ncu first, while this process has no device context of its own; then the in-process timings.
    work = args.work
    work.mkdir(parents=True, exist_ok=True)
    res = ncu_all(args.ncu, ids, work, t0 + NCU_SHARE * args.budget_s, args.chunk)
    rows = [_row(CASES[cid], res[cid], deadline) for cid in ids]
    import torch
    summary = ratio_summary(rows)
    state["after"] = gpu_state()
    print(format_table(rows, summary))
    doc = {"rows": rows, "summary": summary, "done_when": done_when(rows), "gpu": state, "elapsed_s": time.monotonic() - t0,
           "ncu": args.ncu, "torch": torch.__version__, "ncu_runs": RUNS}
    (args.out / "timing_vs_ncu.json").write_text(json.dumps(doc, indent=1))
    print(f"elapsed {doc['elapsed_s']:.0f}s; wrote {args.out / 'timing_vs_ncu.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
