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
Clocks: ncu also reads `sm__cycles_elapsed.avg.per_second` (the SM clock each kernel ran at) and nvidia-smi is
sampled every 10 ms while kgb times (`kgb_mhz`); done_when sets kgb/ncu beside ncu's own spread over its calls
and, where both clocks are known, beside the ratio in cycles. In the s14 runs every kernel out of the 0.97-1.03
band had its kgb time below all of ncu's calls (above, for the 1.5 ms mm): a bias, not noise
(bench/results/timing_vs_ncu_spread_s20.txt). Whether it is the clock (kgb's back-to-back loop keeps the
GPU boosted, or power-capped for a long gemm, while ncu serializes every launch) is what the clocks answer.
The summary gives, per method and ncu column, the median ratio (bias) and its min, max and IQR (error).
The ncu runs come first (60 % of the budget), while this process holds no device context. One ncu run per
chunk of cases, each with a timeout (a failure costs its chunk, whose cases are then retried
one by one while the budget lasts); rows past the time budget are skipped and marked.

FlagGems pairs (issue 18: "the speedup of each FlagGems kernel over the native op by kgb within 3 % of the same
ratio by ncu"): FlagGems' add, sum, argmax, cos, softmax and cumsum (last dim) and index_select (dim 1), each
beside its native op at the same two sizes with the same arguments; `speedups` gives native/FlagGems by kgb and
by ncu-flush per pair, and whether they agree within 3 % (done_when["speedups"], and a second table).
flag_gems is imported only for its cases (GEMS_VENDOR=nvidia saves its vendor probe); where it is not
installed, or does not import, its cases are skipped with a note.
Cost (H200, the 22 spread cases, every method and column: 62 s in all): one ncu run over 11 cases (~215
profiled kernels, python and CUDA start-up included) took 9-13 s. A FlagGems case adds flag_gems' import and
its kernels' first compile to the run that meets it first (~10-30 s, a guess; later runs hit Triton's cache).
In process: kgb ~1 s per case, each other method ~0.5 s more. So `--families pairs` (28 cases) with every
method and column should take ~100-150 s; `--methods kgb,ksum --ncu-columns ncu_flush` about half.
Usage (GPU, repo root):  python3 bench/bench_timing_vs_ncu.py OUT_DIR [--budget-s 270] [--ncu PATH] [--only a,b]
                         [--families pairs,torch.mm] [--methods kgb,ksum] [--ncu-columns ncu_flush] [--ncu-calls 5]
Anywhere:                python3 bench/bench_timing_vs_ncu.py --analyze OUT_DIR/timing_vs_ncu.json
                         (the done_when table with ncu's own spread over its calls of each kernel)
"""

from __future__ import annotations

import argparse
import csv
import importlib
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
CLOCK_METRIC = "sm__cycles_elapsed.avg.per_second"  # the SM clock during the kernel: kgb's loop runs hotter
FLUSH_NAME = "kgb_l2_flush"
EMPTY_CASE = "empty"
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
    # One program that does nothing: under ncu its whole time is ncu's fixed cost per kernel (plus the launch's
    # few hundred ns that the profiler's interval also shows), the cost `ncu_kernel_cost` takes off.
    out.append(Case(EMPTY_CASE, "triton empty", "1 program, no work", (1,)))
    return out


# FlagGems family -> (its native op's family, FlagGems module, function). A pair's two cases share their
# params, so `build` hands both the same arguments. None of these autotunes (triton.heuristics and fixed
# block sizes only, FlagGems 5.0.2): a case's first call compiles on the host and launches no extra kernels.
FLAGGEMS = {
    "flaggems add": ("torch.add", "flag_gems.ops.add", "add"),
    "flaggems sum": ("torch.sum", "flag_gems.ops.sum", "sum"),
    "flaggems argmax": ("torch.argmax", "flag_gems.ops.argmax", "argmax"),
    "flaggems cos": ("torch.cos", "flag_gems.ops.cos", "cos"),
    "flaggems softmax": ("torch.softmax", "flag_gems.ops.softmax", "softmax"),
    "flaggems cumsum": ("torch.cumsum", "flag_gems.ops.cumsum", "cumsum"),
    "flaggems index_select": ("torch.index_select", "flag_gems.ops.index_select", "index_select"),
}
# No copy_ pair: torch's contiguous same-dtype copy_ is a device-to-device memcpy, no kernel, so ncu (which
# profiles kernels only) has no time for it (the H200 run: copy_'s ncu times are 0).


def _flat(stem: str, k: int) -> tuple[str, str, tuple]:
    return f"{stem}_{1 << k}", f"2^{k} f32", (1 << k,)


def pair_cases() -> list[Case]:
    """Each FlagGems op and its native op at two sizes: ~15-50 µs and ~100 µs-1 ms on an H200 (f32)."""
    sizes: dict[str, list[tuple[str, str, tuple]]] = {
        "add": [_flat("add", 24), _flat("add", 27)],  # 3 x 64 MB ~ 50 µs; 3 x 512 MB ~ 400 µs
        "sum": [_flat("sum", 25), _flat("sum", 27)],  # 128 MB ~ 40 µs; 512 MB ~ 140 µs
        "argmax": [_flat("argmax", 25), _flat("argmax", 27)],
        "cos": [_flat("cos", 23), _flat("cos", 26)],  # 2 x 32 MB ~ 20 µs; 2 x 256 MB ~ 150 µs
    }
    for op in ("softmax", "cumsum"):  # along the last dim
        sizes[op] = [(f"{op}_{n}x{n}", f"{n}x{n} f32", (n, n)) for n in (4096, 8192)]
    sizes["index_select"] = [(f"index_select_{n}x{n}", f"{n}x{n}[{n}] f32", (n, n, n)) for n in (4096, 8192)]
    out = []
    for fam, (native, _, op) in FLAGGEMS.items():
        for cid, size, params in sizes[op]:
            out += [Case(cid, native, size, params), Case(f"fg_{cid}", fam, size, params)]
    return out


def _all_cases() -> dict[str, Case]:
    """The spread and the pairs by id; an id in both must be the same case (the pairs reuse the spread's)."""
    out = {c.id: c for c in _cases()}
    for c in pair_cases():
        if out.setdefault(c.id, c) != c:
            raise ValueError(f"case id {c.id!r} means two cases")
    return out


CASES = _all_cases()


def _solution(name: str, attr: str) -> Callable[..., Any]:
    """A function from examples/solutions/ (Triton reads a kernel's source from its file)."""
    path = ROOT / "examples" / "solutions" / name
    spec = importlib.util.spec_from_file_location(f"kgb_sol_{path.stem.replace('.', '_')}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, attr)


class FlagGemsUnavailable(RuntimeError):
    """flag_gems (or one of its ops) cannot be imported here: its cases are skipped with this reason."""


def flaggems_fn(family: str, import_module: Callable[[str], Any] = importlib.import_module) -> Callable[..., Any]:
    """The FlagGems function of a 'flaggems ...' family, imported only now (only FlagGems cases need it)."""
    _, module, attr = FLAGGEMS[family]
    try:
        return getattr(import_module(module), attr)
    except Exception as exc:  # noqa: BLE001 - any import failure (no wheel, no vendor, no GPU) skips the case
        raise FlagGemsUnavailable(f"{module}.{attr}: {type(exc).__name__}: {exc}"[:300]) from exc


def _native_fn(family: str) -> Callable[..., Any]:
    import torch

    fns = {"torch.add": torch.add, "torch.sum": torch.sum, "torch.argmax": torch.argmax, "torch.cos": torch.cos,
           "torch.softmax": torch.softmax, "torch.cumsum": torch.cumsum, "torch.index_select": torch.index_select,
           "torch.mm": torch.mm, "copy_": lambda dst, src: dst.copy_(src)}
    if family == "triton add":
        return _solution("aten__add.Tensor.py", "add_Tensor")
    if family == "triton row sum":
        return _solution("aten__sum.dim_IntList.py", "sum_dim_IntList")
    if family == "triton empty":
        return _empty_launch()
    if family not in fns:
        raise ValueError(f"unknown family {family!r}")
    return fns[family]


def _empty_launch() -> Callable[..., Any]:
    """A launch of one program of a kernel with no body (triton imported only when a case needs it)."""
    import triton

    @triton.jit
    def kgb_empty(x_ptr):
        pass

    def launch(x: Any) -> None:
        kgb_empty[(1,)](x)

    return launch


def _arg_factory(family: str, p: tuple, dev: Any) -> Callable[[int], tuple[list, dict]]:
    """Seeded argument sets of a (native) family: index s gives the same tensors every time, s != t different."""
    import torch

    def rand(seed: int, *shape: int, dtype: Any = torch.float32) -> Any:
        g = torch.Generator(device=dev).manual_seed(seed)
        return torch.randn(*shape, generator=g, device=dev, dtype=dtype)

    def index(seed: int, high: int, n: int) -> Any:
        g = torch.Generator(device=dev).manual_seed(seed)
        return torch.randint(0, high, (n,), generator=g, device=dev)

    unary = {"torch.sum", "torch.argmax", "torch.cos"}
    if family in ("torch.add", "triton add"):
        return lambda s: ([rand(s, p[0]), rand(s + 99, p[0])], {})
    if family in unary or family == "triton empty":
        return lambda s: ([rand(s, p[0])], {})
    if family in ("torch.softmax", "torch.cumsum"):
        return lambda s: ([rand(s, *p), -1], {})
    if family == "torch.index_select":
        return lambda s: ([rand(s, p[0], p[1]), 1, index(s + 99, p[1], p[2])], {})
    if family == "copy_":
        return lambda s: ([torch.empty(p[0], device=dev), rand(s, p[0])], {})
    if family == "torch.mm":
        dt = getattr(torch, p[1])
        return lambda s: ([rand(s, p[0], p[0], dtype=dt), rand(s + 99, p[0], p[0], dtype=dt)], {})
    if family == "triton row sum":
        return lambda s: ([rand(s, *p), [1]], {})
    raise ValueError(f"unknown family {family!r}")


def build(case: Case, dev: Any, import_module: Callable[[str], Any] = importlib.import_module
          ) -> tuple[Callable[..., Any], Callable[[int], tuple[list, dict]]]:
    """(fn, arg_sets) for a case, as the worker hands them to `time_callable`; a FlagGems case gets its native
    op's arguments (raises FlagGemsUnavailable where flag_gems does not import)."""
    if case.family in FLAGGEMS:
        return flaggems_fn(case.family, import_module), _arg_factory(FLAGGEMS[case.family][0], case.params, dev)
    return _native_fn(case.family), _arg_factory(case.family, case.params, dev)


# ---------------------------------------------------------------- pure helpers (tested on CPU)

def ncu_command(ncu: str, cache: str, log: Path, child: Sequence[str]) -> list[str]:
    """The ncu command line profiling every kernel of `child` for its duration only, clocks left free."""
    if cache not in ("all", "none"):
        raise ValueError(f"cache must be 'all' or 'none', not {cache!r}")
    return [ncu, "--target-processes", "all", "--metrics", f"{METRIC},{CLOCK_METRIC}", "--cache-control", cache,
            "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
            "--log-file", str(log), *child]


def _ncu_column(text: str, metric: str) -> list[tuple[int, str, float, str]]:
    """(ID, kernel name, value, unit) per profiled kernel with a value for `metric`, in launch order, from ncu's
    raw CSV page."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    head = rows[0]
    if "ID" not in head or metric not in head:
        return []
    name_col = next((c for c in ("Kernel Name", "Function Name", "Name") if c in head), None)
    if name_col is None:
        return []
    i_id, i_name, i_val = head.index("ID"), head.index(name_col), head.index(metric)
    units = rows[1][i_val].strip() if len(rows) > 1 and not rows[1][i_id].strip().isdigit() else ""
    out = []
    for r in rows[1:]:
        if len(r) <= i_val or not r[i_id].strip().isdigit():
            continue
        try:
            out.append((int(r[i_id]), r[i_name], float(r[i_val].replace(",", "")), units))
        except ValueError:
            continue
    return sorted(out)


def parse_ncu_csv(text: str) -> list[tuple[str, float]]:
    """(kernel name, duration in µs) per profiled kernel, in launch order, from ncu's raw CSV page (base units: ns)."""
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6,
             "second": 1e6}
    return [(name, v * scale.get(unit, 1e-3)) for _, name, v, unit in _ncu_column(text, METRIC)]


def parse_ncu_clocks(text: str) -> list[float]:
    """The SM clock (MHz) each profiled kernel ran at, in launch order (ncu's `CLOCK_METRIC`; base units: Hz)."""
    def mhz(v: float, unit: str) -> float:
        per = unit.split("/")[-1] if "/" in unit else ""
        return v * {"nsecond": 1e3, "usecond": 1.0, "msecond": 1e-3}.get(per, 1e-6)  # cycle/second: Hz
    return [mhz(v, unit) for _, _, v, unit in _ncu_column(text, CLOCK_METRIC)]


def call_clocks(kernels: list[tuple[str, float]], clocks: list[float]) -> list[float | None]:
    """Per call (as `calls_from_kernels` splits them), the duration-weighted mean SM clock of its kernels."""
    if len(clocks) != len(kernels):
        return []
    sums: list[list[float]] = []
    for (name, us), mhz in zip(kernels, clocks, strict=True):
        if FLUSH_NAME in name:
            sums.append([0.0, 0.0])
        elif sums:
            sums[-1][0] += us * mhz
            sums[-1][1] += us
    return [w / t if t else None for w, t in sums]


def measured_calls(flushes: int, calls: int = NCU_CALLS) -> dict[str, int]:
    """Indices [first, last) of a case's measured calls once the child has launched `flushes` flush kernels
    in all, the case's terminator included: the `calls` calls before the terminator."""
    return {"first": flushes - 1 - calls, "last": flushes - 1}


def calls_from_kernels(kernels: list[tuple[str, float]]) -> list[float]:
    """Per call, the summed duration (µs) of the kernels between one flush kernel and the next."""
    return [sum(us for _, us in call) for call in _calls(kernels)]


def kernel_counts(kernels: list[tuple[str, float]]) -> list[int]:
    """Per call (as `calls_from_kernels` splits them), how many kernels it ran: ncu's fixed cost is per kernel."""
    return [len(call) for call in _calls(kernels)]


def _calls(kernels: list[tuple[str, float]]) -> list[list[tuple[str, float]]]:
    groups: list[list[tuple[str, float]]] = []
    for name, us in kernels:
        if FLUSH_NAME in name:
            groups.append([])
        elif groups:
            groups[-1].append((name, us))
    return groups


def ncu_case_times(kernels: list[tuple[str, float]], plan: list[dict[str, Any]],
                   clocks: list[float] | None = None) -> dict[str, dict[str, Any]]:
    """Per case of the child's plan ({"case", "first", "last"} call indices), the median ncu time of its calls,
    and with `clocks` (per kernel, MHz) the median SM clock they ran at."""
    calls, counts = calls_from_kernels(kernels), kernel_counts(kernels)
    mhz = call_clocks(kernels, clocks or [])
    out = {}
    for p in plan:
        if p.get("error"):  # the child could not build it (flag_gems missing): no calls of its own
            out[p["case"]] = {"us": None, "error": p["error"]}
            continue
        got = calls[p["first"]:p["last"]]
        if len(got) == p["last"] - p["first"] and got:
            out[p["case"]] = {"us": statistics.median(got), "calls_us": got,
                              "kernels": statistics.median(counts[p["first"]:p["last"]])}
            ran = [m for m in mhz[p["first"]:p["last"]] if m]
            if ran:
                out[p["case"]]["mhz"] = statistics.median(ran)
        else:
            out[p["case"]] = {"us": None, "error": f"{len(got)} of {p['last'] - p['first']} calls in ncu's report"}
    return out


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


def ncu_kernel_cost(rows: list[dict[str, Any]], col: str = "ncu_flush") -> float | None:
    """ncu's fixed cost per kernel (µs): its time for the empty kernel less kgb's for the same launch (what
    `gpu__time_duration` of a serialized, replayed kernel adds to the kernel's own interval); None unmeasured."""
    r = next((r for r in rows if r.get("case") == EMPTY_CASE), {})
    return r[col] - r["kgb"] if _pos(r.get(col)) and _pos(r.get("kgb")) else None


def less_cost(r: dict[str, Any], cost_us: float | None, col: str = "ncu_flush") -> float | None:
    """A row's ncu time less `cost_us` per kernel of its calls (None where either is unknown)."""
    n = r.get(f"{col}_kernels")
    if cost_us is None or not _pos(r.get(col)) or not _pos(n):
        return None
    t = r[col] - n * cost_us
    return t if t > 0 else None


def done_when(rows: list[dict[str, Any]], floor_us: float = 10.0,
              band: tuple[float, float] = (0.97, 1.03), cost_us: float | None = None) -> dict[str, Any]:
    """Issue 18's test: kgb / ncu (same writing flush) for every kernel of at least `floor_us`, in `band` or not;
    beside it ncu's own spread over its measured calls of the same kernel (max/min - 1), and whether kgb's time
    lies inside the range of those calls: a kgb time out of band but inside it differs from ncu no more than
    ncu differs from itself. With `cost_us` (`ncu_kernel_cost`), also kgb / (ncu less that cost per kernel)."""
    out = []
    for r in rows:
        if not (_pos(r.get("ncu_flush")) and _pos(r.get("kgb")) and r["ncu_flush"] >= floor_us):
            continue
        calls = [c for c in r.get("ncu_flush_calls") or [] if _pos(c)]
        k = {"case": r.get("case"), "ncu_us": r["ncu_flush"], "kgb_us": r["kgb"], "ratio": r["kgb"] / r["ncu_flush"],
             "in_band": band[0] <= r["kgb"] / r["ncu_flush"] <= band[1],
             "ncu_spread": max(calls) / min(calls) - 1 if calls else None,
             "kgb_mhz": r.get("kgb_mhz"), "ncu_mhz": r.get("ncu_flush_mhz"),
             # cycles, not seconds: a kernel at another clock takes another time for the same work
             "cycles_ratio": (r["kgb"] * r["kgb_mhz"] / (r["ncu_flush"] * r["ncu_flush_mhz"])
                              if _pos(r.get("kgb_mhz")) and _pos(r.get("ncu_flush_mhz")) else None),
             "in_ncu_range": min(calls) <= r["kgb"] <= max(calls) if calls else None}
        net = less_cost(r, cost_us)
        k["ratio_less_cost"] = r["kgb"] / net if net else None
        k["in_band_less_cost"] = band[0] <= k["ratio_less_cost"] <= band[1] if net else None
        out.append(k)
    return {"band": band, "floor_us": floor_us, "kernels": out, "in_band": sum(k["in_band"] for k in out),
            "out_of_band_in_ncu_range": sum(bool(k["in_ncu_range"]) for k in out if not k["in_band"]),
            "ncu_kernel_cost_us": cost_us, "in_band_less_cost": sum(bool(k["in_band_less_cost"]) for k in out),
            "less_cost_measured": sum(k["in_band_less_cost"] is not None for k in out)}


def format_done_when(dw: dict[str, Any]) -> str:
    """The printed done_when table: per kernel kgb, ncu, their ratio, ncu's own spread and range test."""
    lines = [f"{'case':28s} {'kgb us':>9s} {'ncu us':>9s} {'kgb/ncu':>8s} {'band':>5s} {'ncu spread':>10s} "
             f"{'kgb in ncu range':>16s} {'MHz kgb/ncu':>11s} {'cycles kgb/ncu':>14s} {'less cost':>9s}"]
    for k in dw["kernels"]:
        spread = "-" if k["ncu_spread"] is None else f"{100 * k['ncu_spread']:.1f}%"
        mhz = f"{k['kgb_mhz']:.0f}/{k['ncu_mhz']:.0f}" if k.get("cycles_ratio") else "-"
        cycles = f"{k['cycles_ratio']:.3f}" if k.get("cycles_ratio") else "-"
        lines.append(f"{k['case']:28s} {k['kgb_us']:9.2f} {k['ncu_us']:9.2f} {k['ratio']:8.3f} "
                     f"{'in' if k['in_band'] else 'OUT':>5s} {spread:>10s} {str(k['in_ncu_range']):>16s} "
                     f"{mhz:>11s} {cycles:>14s} {_num(k.get('ratio_less_cost'), 9, 3)}")
    lines.append(f"{dw['in_band']} of {len(dw['kernels'])} kernels >= {dw['floor_us']:g} us in "
                 f"{dw['band'][0]}-{dw['band'][1]}; of the others, {dw['out_of_band_in_ncu_range']} inside the "
                 f"range of ncu's own calls")
    if dw.get("ncu_kernel_cost_us") is not None:
        lines.append(f"ncu's cost per kernel (empty kernel, ncu less kgb): {dw['ncu_kernel_cost_us']:.2f} us; "
                     f"less that cost per kernel, {dw['in_band_less_cost']} of {dw['less_cost_measured']} in band")
    return "\n".join(lines)


def _num(v: Any, w: int, p: int) -> str:
    return f"{v:>{w}.{p}f}" if isinstance(v, int | float) and not isinstance(v, bool) else f"{'-':>{w}}"


def speedups(rows: list[dict[str, Any]], tol: float = 0.03, floor_us: float = 10.0,
             cost_us: float | None = None) -> list[dict[str, Any]]:
    """Per FlagGems row and its native row (same size): native/FlagGems time by kgb and by ncu-flush, their
    ratio, and whether it is within `tol` of 1; `floor` says both ncu times are at least `floor_us`; with
    `cost_us`, the same against ncu less that cost per kernel (`within_less_cost`)."""
    native = {(r["family"], r["size"]): r for r in rows if r.get("family") not in FLAGGEMS}
    out = []
    for fg in rows:
        if fg.get("family") not in FLAGGEMS:
            continue
        nat = native.get((FLAGGEMS[fg["family"]][0], fg["size"]))
        p: dict[str, Any] = {"op": fg["family"].removeprefix("flaggems "), "size": fg["size"],
                             "flaggems": fg.get("case"), "native": nat.get("case") if nat else None}
        for col in ("kgb", "ksum", "ncu_flush"):
            a, b = (nat or {}).get(col), fg.get(col)
            p[f"native_{col}_us"], p[f"flaggems_{col}_us"] = a, b
            p[f"{col}_speedup"] = a / b if _pos(a) and _pos(b) else None
        k, n = p["kgb_speedup"], p["ncu_flush_speedup"]
        p["ratio"] = k / n if k and n else None
        p["within"] = abs(p["ratio"] - 1) <= tol if p["ratio"] else None
        times = [p["native_ncu_flush_us"], p["flaggems_ncu_flush_us"]]
        p["floor"] = all(_pos(t) and t >= floor_us for t in times)
        a, b = less_cost(nat or {}, cost_us), less_cost(fg, cost_us)
        p["ratio_less_cost"] = k / (a / b) if k and a and b else None
        p["within_less_cost"] = abs(p["ratio_less_cost"] - 1) <= tol if p["ratio_less_cost"] else None
        out.append(p)
    return out


def speedup_summary(pairs: list[dict[str, Any]], tol: float = 0.03) -> dict[str, Any]:
    """Issue 18's FlagGems test for done_when: the pairs, and how many have kgb's speedup within `tol` of ncu's."""
    measured = [p for p in pairs if p["within"] is not None]
    return {"tol": tol, "pairs": pairs, "measured": len(measured), "within": sum(p["within"] for p in measured),
            "measured_floor": sum(p["floor"] for p in measured),
            "within_floor": sum(p["within"] for p in measured if p["floor"]),
            "within_less_cost": sum(bool(p.get("within_less_cost")) for p in measured),
            "measured_less_cost": sum(p.get("within_less_cost") is not None for p in measured)}


def format_speedups(pairs: list[dict[str, Any]]) -> str:
    """The printed speedup table: FlagGems over native by kgb and by ncu-flush, one line per pair."""
    f = _num
    head = (f"{'op':<14}{'size':<20}{'nat kgb':>10}{'fg kgb':>10}{'nat ncu':>10}{'fg ncu':>10}"
            f"{'kgb x':>8}{'ncu x':>8}{'ksum x':>8}{'kgb/ncu':>9}{'less cost':>10}  within")
    lines = [head, "-" * len(head)]
    for p in pairs:
        lines.append(f"{p['op']:<14}{p['size']:<20}" + f(p["native_kgb_us"], 10, 2) + f(p["flaggems_kgb_us"], 10, 2)
                     + f(p["native_ncu_flush_us"], 10, 2) + f(p["flaggems_ncu_flush_us"], 10, 2)
                     + f(p["kgb_speedup"], 8, 3) + f(p["ncu_flush_speedup"], 8, 3) + f(p["ksum_speedup"], 8, 3)
                     + f(p["ratio"], 9, 3) + f(p.get("ratio_less_cost"), 10, 3) + "  " + {True: "yes", False: "NO", None: "-"}[p["within"]]
                     + ("" if p["floor"] or p["within"] is None else " (<10us)"))
    return "\n".join(lines)


def select_cases(only: Sequence[str], families: Sequence[str]) -> list[str]:
    """Case ids: those named in `only` and those of `families` ('pairs': every FlagGems pair's cases,
    'flaggems': every FlagGems family); nothing named means every case. Raises on unknown names. A pair's
    two cases come one after the other (first the pairs, then the rest in CASES order): a run cut short by
    its budget then loses whole pairs, not one half of many."""
    pair_ids = {c.id: None for c in pair_cases()}
    known = {c.family for c in CASES.values()} | {"pairs", "flaggems"}
    bad = [x for x in only if x not in CASES] + [f for f in families if f not in known]
    if bad:
        raise ValueError(f"unknown cases or families {bad}")
    if not only and not families:
        return list(CASES)
    fams = set(families) | (set(FLAGGEMS) if "flaggems" in families else set())
    order = [*pair_ids, *(cid for cid in CASES if cid not in pair_ids)]
    return [cid for cid in order
            if cid in only or CASES[cid].family in fams or ("pairs" in families and cid in pair_ids)]


def format_table(rows: list[dict[str, Any]], summary: dict[str, dict[str, Any]]) -> str:
    """The printed table: one line per case, then the ratio summary."""
    def f(v: Any, w: int = 9, p: int = 2) -> str:
        return f"{v:>{w}.{p}f}" if isinstance(v, int | float) else f"{'-':>{w}}"

    cols = list(METHODS) + list(NCU_COLUMNS)
    head = f"{'kernel':<22}{'size':<20}" + "".join(f"{c:>10}" for c in cols)
    head += f"{'kgb/flush':>10}{'kgb/clean':>10}{'ksum/fl':>10}{'drain/fl':>10}{'fl/clean':>10}  note"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = f"{r['family']:<22}{r['size']:<20}" + "".join(" " + f(r.get(c)) for c in cols)
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
    groups = calls_from_kernels([(name, (e - s) / 1e3) for s, e, _, name in acts])
    ksums = [g for g in groups if g > 0][-reps:]
    return (timing.trimmed_mean(spans) if spans else float("nan")), (timing.trimmed_mean(ksums) if ksums else float("nan"))


def time_in_process(case: Case, methods: Sequence[str] = METHODS) -> dict[str, Any]:
    """kgb's `time_callable` (worker defaults) and those of the alternative `methods` asked for, for one case."""
    import torch

    from kernelgenbench.evaluator import timing
    from kernelgenbench.evaluator.timing import TimingConfig, time_callable

    dev = torch.device("cuda")
    fn, arg_sets = build(case, dev)
    with SmClock() as clock:
        t = time_callable(fn, arg_sets, device=dev, config=TimingConfig())
    row: dict[str, Any] = {"kgb": t.time_us, "kgb_method": t.method, "kgb_median": t.median_us,
                           "kgb_event_median": t.event_median_us, "kgb_reps": t.reps,
                           "kernels_per_call": t.kernels_per_call, "kgb_mhz": clock.median_mhz()}
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
    if "ksum" in methods:
        row["span_w"], row["ksum"] = _alt_loop(fn, sets, wflush, reps)
    for name, pre in (("read", rflush), ("drain", write_then_drain), ("idle", idle)):
        if name in methods:
            row[name], _ = _alt_loop(fn, sets, pre, reps)
    row["alt_reps"] = reps
    del sets
    torch.cuda.empty_cache()
    return row


# ---------------------------------------------------------------- GPU: the ncu child and its runs

def child_main(ids: list[str], plan_path: Path, measured: int = NCU_CALLS) -> None:
    """Run under ncu: per case, one untimed first call (a FlagGems op compiles on it), 3 warm-up and `measured`
    calls, each after kgb's writing flush, then one more flush so that the next case's setup kernels fall
    outside every measured call; writes the call plan (a case that cannot be built gets its error instead)."""
    import torch

    from kernelgenbench.evaluator import timing

    dev = torch.device("cuda")
    flush = timing._flush_fn(dev, 2 * timing.l2_bytes(dev), "write")
    plan: list[dict[str, Any]] = []
    calls = 0
    for cid in ids:
        try:
            fn, arg_sets = build(CASES[cid], dev)
        except FlagGemsUnavailable as exc:
            plan.append({"case": cid, "error": f"skipped: {exc}"})
            continue
        sets = [arg_sets(i) for i in range(2)]
        fn(*sets[0][0], **sets[0][1])  # before the first flush: its kernels join the previous, unmeasured group
        for i in range(NCU_WARMUP + measured):
            a, kw = sets[i % len(sets)]
            flush()
            calls += 1
            fn(*a, **kw)
        flush()  # the terminator: what follows belongs to no measured call
        calls += 1
        torch.cuda.synchronize()
        plan.append({"case": cid, **measured_calls(calls, measured)})
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
    clocks = parse_ncu_clocks(log.read_text(errors="replace")) if log.exists() else []
    got = ncu_case_times(kernels, plan, clocks) if plan and kernels else {}
    RUNS[-1].update(kernels=len(kernels), cases_planned=len(plan), first_kernels=kernels[:12])
    for cid in ids:
        if cid not in got or got[cid]["us"] is None:
            got[cid] = {"us": None, "error": (err or got.get(cid, {}).get("error") or "no ncu records")}
    return got


def ncu_all(ncu: str, ids: list[str], work: Path, deadline: float, chunk: int,
            columns: Sequence[str] = NCU_COLUMNS) -> dict[str, dict[str, Any]]:
    """ncu-clean and/or ncu-flush times per case: chunked runs, failed chunks retried case by case, within a
    deadline."""
    res: dict[str, dict[str, Any]] = {cid: {} for cid in ids}
    for cache, col in (("all", "ncu_clean"), ("none", "ncu_flush")):
        if col not in columns:
            continue
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
    # A case the child skipped (flag_gems missing) would only be skipped again.
    for cid in [c for c in part if got[c]["us"] is None and not got[c].get("error", "").startswith("skipped")]:
        left = deadline - time.monotonic()
        if left < 20 or (failures >= 2 and measured == 0):
            break
        got[cid] = run_ncu(ncu, cache, [cid], work, min(60.0, left))[cid]
        failures = failures + 1 if got[cid]["us"] is None else 0
        measured += got[cid]["us"] is not None


class SmClock:
    """nvidia-smi's SM clock sampled every 10 ms while the block runs (the clock kgb's timed loop ran at)."""

    def __enter__(self) -> SmClock:
        cmd = ["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-lms", "10"]
        try:
            self._p: subprocess.Popen | None = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                                                stderr=subprocess.DEVNULL, text=True)
        except OSError:  # no nvidia-smi: no clock, the timing itself goes on
            self._p = None
        self._out = ""
        return self

    def __exit__(self, *exc: object) -> None:
        if self._p is not None:
            self._p.terminate()
            self._out, _ = self._p.communicate(timeout=10)

    def median_mhz(self) -> float | None:
        """The median of the samples (MHz), or None."""
        got = [float(x) for x in self._out.split() if x.replace(".", "", 1).isdigit()]
        return statistics.median(got) if got else None


def gpu_state() -> str:
    """nvidia-smi's clocks, power and temperature line (or why not)."""
    q = "name,clocks.sm,clocks.mem,power.draw,temperature.gpu"
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20).stdout.strip()
    except Exception as exc:  # noqa: BLE001 - a missing nvidia-smi only loses this line
        return f"nvidia-smi unavailable: {exc}"


def _row(c: Case, ncu_res: dict[str, dict[str, Any]], deadline: float, methods: Sequence[str] = METHODS,
         skip: str = "") -> dict[str, Any]:
    """One table row: the in-process timings (unless past the deadline, or `skip` says why not) beside the
    case's ncu times."""
    row: dict[str, Any] = {"case": c.id, "family": c.family, "size": c.size}
    if skip:
        row["note"] = skip
    elif time.monotonic() > deadline - 5:
        row["note"] = "in-process skipped: time budget"
    else:
        try:
            row.update(time_in_process(c, methods))
        except FlagGemsUnavailable as exc:
            row["note"] = f"in-process skipped: {exc}"[:200]
        except Exception as exc:  # noqa: BLE001 - one case's failure loses only its row
            row["note"] = f"in-process failed: {type(exc).__name__}: {exc}"[:200]
    for col, r in ncu_res.items():
        row[col] = r["us"]
        row[f"{col}_calls"] = r.get("calls_us")
        row[f"{col}_mhz"] = r.get("mhz")
        row[f"{col}_kernels"] = r.get("kernels")
        if r.get("error") and not skip:
            row["note"] = (row.get("note", "") + f" {col}: {r['error']}").strip()[:300]
    print(f"{c.id}: " + ", ".join(f"{k}={row.get(k)}" for k in (*METHODS, *NCU_COLUMNS)), flush=True)
    return row


def flaggems_missing() -> str:
    """Why no FlagGems case can run here ('' where flag_gems is installed), found without importing it: the
    parent imports it only after the ncu runs, so that it holds no device context during them."""
    return "" if importlib.util.find_spec("flag_gems") else "skipped: flag_gems is not installed"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("out", nargs="?", type=Path, help="output folder for timing_vs_ncu.json (its only file)")
    ap.add_argument("--budget-s", type=float, default=270.0, help="total wall-clock budget (rows past it are skipped)")
    ap.add_argument("--ncu", default=NCU_DEFAULT, help="ncu executable")
    ap.add_argument("--only", default="", help="comma-separated case ids: " + ",".join(CASES))
    ap.add_argument("--families", default="", help="comma-separated families, or 'pairs' (every FlagGems op and "
                    "its native op at the pair sizes) or 'flaggems'; with --only, the union (default: all cases)")
    ap.add_argument("--methods", default=",".join(METHODS),
                    help="in-process methods: kgb and any of " + ",".join(METHODS[1:]) + " (fewer: faster)")
    ap.add_argument("--ncu-columns", default=",".join(NCU_COLUMNS),
                    help="ncu runs: ncu_clean and/or ncu_flush (the speedups need ncu_flush only)")
    ap.add_argument("--chunk", type=int, default=11, help="cases per ncu run")
    ap.add_argument("--work", type=Path, default=Path("/tmp/kgb-ncu"), help="scratch folder for ncu's files")
    ap.add_argument("--ncu-calls", type=int, default=NCU_CALLS,
                    help="measured calls per kernel under ncu (more: a tighter median, and ncu's own spread)")
    ap.add_argument("--analyze", type=Path, help="print the done_when table of an earlier timing_vs_ncu.json")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    ap.add_argument("--plan", type=Path, help=argparse.SUPPRESS)
    return ap


def _split(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments; run as the child under ncu, or as the parent that times, profiles and reports."""
    ap = _parser()
    args = ap.parse_args(argv)
    if args.child:
        child_main(args.child.split(","), args.plan, int(os.environ.get("KGB_NCU_CALLS", NCU_CALLS)))
        return 0
    if args.analyze:
        rows = json.loads(args.analyze.read_text())["rows"]
        print(format_done_when(done_when(rows, cost_us=ncu_kernel_cost(rows))))
        return 0
    os.environ["KGB_NCU_CALLS"] = str(args.ncu_calls)  # read by the children ncu starts
    if args.out is None:
        ap.error("OUT folder required")
    methods, columns = _split(args.methods), _split(args.ncu_columns)
    if "kgb" not in methods or not set(methods) <= set(METHODS) or not set(columns) <= set(NCU_COLUMNS):
        ap.error(f"--methods must include kgb and name only {METHODS}; --ncu-columns only {NCU_COLUMNS}")
    t0 = time.monotonic()
    try:
        ids = select_cases(_split(args.only), _split(args.families))
    except ValueError as exc:
        ap.error(str(exc))
    missing = flaggems_missing()
    skip = {cid: missing for cid in ids if CASES[cid].family in FLAGGEMS and missing}
    args.out.mkdir(parents=True, exist_ok=True)
    state = {"before": gpu_state()}
    print(state["before"] + (f"\nFlagGems cases {missing}" if skip else ""), flush=True)
    # ncu first, while this process has no device context of its own; then the in-process timings.
    args.work.mkdir(parents=True, exist_ok=True)
    res = ncu_all(args.ncu, [c for c in ids if c not in skip], args.work, t0 + NCU_SHARE * args.budget_s,
                  args.chunk, columns)
    rows = [_row(CASES[cid], res.get(cid, {}), t0 + args.budget_s, methods, skip.get(cid, "")) for cid in ids]
    state["after"] = gpu_state()
    _report(args, rows, state, t0)
    return 0


def _report(args: argparse.Namespace, rows: list[dict[str, Any]], state: dict[str, str], t0: float) -> None:
    """Print the tables and write timing_vs_ncu.json."""
    import torch

    summary = ratio_summary(rows)
    cost = ncu_kernel_cost(rows)
    pairs = speedups(rows, cost_us=cost)
    print(format_table(rows, summary))
    if pairs:
        print("\nFlagGems speedup over the native op (x = native/FlagGems), kgb vs ncu-flush, within 3 %:")
        print(format_speedups(pairs))
    dw = done_when(rows, cost_us=cost)
    dw["speedups"] = s = speedup_summary(pairs)
    print(format_done_when(dw))
    print(f"done_when: {dw['in_band']} of {len(dw['kernels'])} kernels >= {dw['floor_us']:g} us in band; "
          f"speedups within 3 %: {s['within']} of {s['measured']} pairs; less ncu's cost per kernel "
          f"({cost if cost is None else round(cost, 2)} us): {dw['in_band_less_cost']} of "
          f"{dw['less_cost_measured']} kernels, {s['within_less_cost']} of {s['measured_less_cost']} pairs")
    doc = {"rows": rows, "summary": summary, "done_when": dw, "gpu": state, "elapsed_s": time.monotonic() - t0,
           "ncu": args.ncu, "torch": torch.__version__, "ncu_runs": RUNS,
           "argv": {"only": args.only, "families": args.families, "methods": args.methods,
                    "ncu_columns": args.ncu_columns, "budget_s": args.budget_s}}
    (args.out / "timing_vs_ncu.json").write_text(json.dumps(doc, indent=1))
    print(f"elapsed {doc['elapsed_s']:.0f}s; wrote {args.out / 'timing_vs_ncu.json'}")


if __name__ == "__main__":
    sys.exit(main())
