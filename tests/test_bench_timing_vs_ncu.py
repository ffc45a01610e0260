"""bench/bench_timing_vs_ncu.py on CPU: ncu's command line, its CSV parsed into calls and cases, the ratios."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "bench_timing_vs_ncu.py"


@pytest.fixture(scope="module")
def b():
    spec = importlib.util.spec_from_file_location("bench_timing_vs_ncu", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass resolves annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def test_help_runs_without_a_gpu():
    p = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "--budget-s" in p.stdout and "cache-control" in p.stdout


def test_ncu_command_measures_duration_only_with_free_clocks(b, tmp_path):
    cmd = b.ncu_command("/usr/local/cuda/bin/ncu", "none", tmp_path / "x.csv", ["python3", "s.py", "--child", "a"])
    assert cmd[0] == "/usr/local/cuda/bin/ncu"
    assert cmd[cmd.index("--cache-control") + 1] == "none"
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--metrics") + 1] == "gpu__time_duration.sum"
    assert cmd[cmd.index("--page") + 1] == "raw" and "--csv" in cmd
    assert cmd[cmd.index("--log-file") + 1] == str(tmp_path / "x.csv")
    assert cmd[-4:] == ["python3", "s.py", "--child", "a"]
    clean = b.ncu_command("ncu", "all", tmp_path / "x", ["p"])
    assert clean[clean.index("--cache-control") + 1] == "all" and "--kernel-name" not in clean
    with pytest.raises(ValueError):
        b.ncu_command("ncu", "clean", tmp_path / "x", ["p"])


def _csv(kernels, units="nsecond"):
    head = ('==PROF== Connected to process 1 (/usr/bin/python3.12)\n'
            '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
            '"Grid Size","Device","CC","gpu__time_duration.sum"\n'
            f'"","","","","","","","","","","","{units}"\n')
    body = "".join(f'"{i}","1","python3.12","h","{name}","1","7","(128, 1, 1)","(9, 1, 1)","0","9.0","{ns}"\n'
                   for i, (name, ns) in enumerate(kernels))
    return head + body + "==PROF== Disconnected from process 1\n"


def _child_stream(b, cases):
    """The launches the child makes, as (name, ns): per case setup kernels, then flush+call per call, terminator."""
    out = [("void at::native::fill_kernel", 1000)]
    plan, flushes = [], 0
    for cid, setup, calls in cases:
        out += [(s, 5000) for s in setup]
        for kernels in calls:
            out.append(("kgb_l2_flush", 30000))
            flushes += 1
            out += kernels
        out.append(("kgb_l2_flush", 30000))
        flushes += 1
        plan.append({"case": cid, **b.measured_calls(flushes)})
    return out, plan


def test_ncu_times_per_case_sum_each_calls_kernels_and_skip_warmups_and_setup(b):
    warm = [[("add_kernel", 99_000)]] * b.NCU_WARMUP
    a_calls = warm + [[("add_kernel", ns)] for ns in (2000, 2100, 2200, 2300, 9000)]
    m_calls = warm + [[("gemm", 10_000), ("splitk_reduce", 500)]] * b.NCU_CALLS
    stream, plan = _child_stream(b, [("a", ["randn"], a_calls), ("m", ["randn", "randn"], m_calls)])
    kernels = b.parse_ncu_csv(_csv(stream))
    assert kernels[0] == ("void at::native::fill_kernel", 1.0)  # ns -> µs, launch order
    got = b.ncu_case_times(kernels, plan)
    assert got["a"]["us"] == pytest.approx(2.2) and got["a"]["calls_us"] == pytest.approx([2.0, 2.1, 2.2, 2.3, 9.0])
    assert got["m"]["us"] == pytest.approx(10.5)


def test_ncu_times_units_row_and_missing_calls(b):
    kernels = b.parse_ncu_csv(_csv([("kgb_l2_flush", 1), ("k", 3)], units="usecond"))
    assert kernels == [("kgb_l2_flush", 1.0), ("k", 3.0)]
    got = b.ncu_case_times(kernels, [{"case": "x", "first": 0, "last": 5}])
    assert got["x"]["us"] is None and "1 of 5" in got["x"]["error"]
    assert b.parse_ncu_csv("==ERROR== no kernels were profiled\n") == []


def test_ratio_summary_separates_bias_from_spread(b):
    rows = [{"kgb": 1.1 * t, "ksum": t, "ncu_flush": t, "ncu_clean": t / 1.05} for t in (2.0, 30.0, 500.0)]
    rows.append({"kgb": 1.4 * 3.0, "ksum": 3.0, "ncu_flush": 3.0, "ncu_clean": None, "drain": math.nan})
    s = b.ratio_summary(rows)
    k = s["kgb/ncu_flush"]
    assert k["median"] == pytest.approx(1.1) and k["max"] == pytest.approx(1.4) and k["min"] == pytest.approx(1.1)
    assert k["n"] == 4 and k["iqr"] == pytest.approx(0.075)
    assert s["ksum/ncu_flush"]["median"] == pytest.approx(1.0) and s["ksum/ncu_flush"]["iqr"] == pytest.approx(0.0)
    assert s["ncu_flush/ncu_clean"]["median"] == pytest.approx(1.05) and s["ncu_flush/ncu_clean"]["n"] == 3
    assert "drain/ncu_flush" not in s  # NaN and missing values never make a ratio
    table = b.format_table([dict(r, family="torch.add", size="2^20 f32") for r in rows], s)
    assert "kgb/ncu_flush" in table and "1.400" in table and "1.100" in table


def test_cases_span_families_and_chunks_cover_all(b):
    fams = {c.family for c in b.CASES.values()}
    assert {"torch.add", "torch.sum", "copy_", "torch.mm", "triton add", "triton row sum"} <= fams
    ids = list(b.CASES)
    parts = b.chunks(ids, 6)
    assert [i for p in parts for i in p] == ids and max(len(p) for p in parts) == 6


def test_every_family_builds_and_computes_on_cpu(b):
    """The cases' callables and argument factories, at tiny sizes, give torch's answer (Triton interpreted)."""
    code = f"""
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("bt", {str(SCRIPT)!r}); b = importlib.util.module_from_spec(spec)
sys.modules["bt"] = b; spec.loader.exec_module(b)
tiny = {{"torch.add": (300,), "triton add": (300,), "torch.sum": (300,), "copy_": (300,),
        "torch.mm": (8, "float32"), "triton row sum": (3, 70)}}
ref = {{"torch.add": lambda x, y: x + y, "triton add": lambda x, y: x + y, "torch.sum": lambda x: x.sum(),
       "copy_": lambda d, s: s, "torch.mm": lambda x, y: x @ y, "triton row sum": lambda x, d: x.sum(d)}}
for fam, params in tiny.items():
    fn, sets = b.build(b.Case("t", fam, "", params), torch.device("cpu"))
    a, kw = sets(1)
    k = 1 if fam == "copy_" else 0  # copy_'s first argument is its (empty) destination
    assert sets(1)[0][k].equal(a[k]) and not sets(2)[0][k].equal(a[k])  # seeded, distinct per index
    torch.testing.assert_close(fn(*a, **kw), ref[fam](*a, **kw), rtol=1e-5, atol=1e-4)
print("ok")
"""
    env = {**__import__("os").environ, "TRITON_INTERPRET": "1"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]


def test_done_when_checks_every_kernel_of_at_least_10_us(b):
    rows = [{"case": "tiny", "kgb": 1.2, "ncu_flush": 2.0}, {"case": "short", "kgb": 15.0, "ncu_flush": 15.6},
            {"case": "long", "kgb": 500.0, "ncu_flush": 501.0}, {"case": "slow", "kgb": 570.0, "ncu_flush": 500.0},
            {"case": "no_ncu", "kgb": 50.0, "ncu_flush": 0.0}]
    d = b.done_when(rows)
    assert {k["case"]: k["in_band"] for k in d["kernels"]} == {"short": False, "long": True, "slow": False}
    assert d["in_band"] == 1
