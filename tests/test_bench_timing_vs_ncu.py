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
    assert "--families" in p.stdout and "--methods" in p.stdout and "--ncu-columns" in p.stdout


def test_bad_selections_are_refused_before_any_gpu_work(tmp_path):
    for extra in (["--families", "flaggems sqrt"], ["--methods", "ksum"], ["--ncu-columns", "ncu_hot"]):
        p = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "o"), *extra], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 2 and "error" in p.stderr, (extra, p.stderr)
    assert not (tmp_path / "o").exists()


def test_ncu_command_measures_duration_and_clock_with_free_clocks(b, tmp_path):
    cmd = b.ncu_command("/usr/local/cuda/bin/ncu", "none", tmp_path / "x.csv", ["python3", "s.py", "--child", "a"])
    assert cmd[0] == "/usr/local/cuda/bin/ncu"
    assert cmd[cmd.index("--cache-control") + 1] == "none"
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert cmd[cmd.index("--metrics") + 1] == "gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second"
    assert cmd[cmd.index("--page") + 1] == "raw" and "--csv" in cmd
    assert cmd[cmd.index("--log-file") + 1] == str(tmp_path / "x.csv")
    assert cmd[-4:] == ["python3", "s.py", "--child", "a"]
    clean = b.ncu_command("ncu", "all", tmp_path / "x", ["p"])
    assert clean[clean.index("--cache-control") + 1] == "all" and "--kernel-name" not in clean
    with pytest.raises(ValueError):
        b.ncu_command("ncu", "clean", tmp_path / "x", ["p"])


def _csv(kernels, units="nsecond", hz=None):
    """ncu's raw CSV page for (name, duration) kernels; with `hz`, the clock column too (one value per kernel)."""
    clock = ',"sm__cycles_elapsed.avg.per_second"' if hz else ""
    head = ('==PROF== Connected to process 1 (/usr/bin/python3.12)\n'
            '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
            f'"Grid Size","Device","CC","gpu__time_duration.sum"{clock}\n'
            f'"","","","","","","","","","","","{units}"' + (',"cycle/second"' if hz else "") + "\n")
    body = "".join(f'"{i}","1","python3.12","h","{name}","1","7","(128, 1, 1)","(9, 1, 1)","0","9.0","{ns}"'
                   + (f',"{hz[i]}"' if hz else "") + "\n" for i, (name, ns) in enumerate(kernels))
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


def test_ncu_clocks_give_each_case_the_duration_weighted_clock_of_its_calls(b):
    calls = [[("gemm", 10_000), ("splitk_reduce", 500)]] * (b.NCU_WARMUP + b.NCU_CALLS)
    stream, plan = _child_stream(b, [("m", ["randn"], calls)])
    hz = [1.98e9 if name == "gemm" else 1.0e9 for name, _ in stream]
    text = _csv(stream, hz=hz)
    clocks = b.parse_ncu_clocks(text)
    assert clocks[0] == pytest.approx(1000.0) and len(clocks) == len(stream)
    got = b.ncu_case_times(b.parse_ncu_csv(text), plan, clocks)
    assert got["m"]["mhz"] == pytest.approx((10 * 1980 + 0.5 * 1000) / 10.5)
    assert "mhz" not in b.ncu_case_times(b.parse_ncu_csv(_csv(stream)), plan, b.parse_ncu_clocks(_csv(stream)))["m"]


def test_done_when_compares_cycles_where_both_clocks_are_known(b):
    rows = [{"case": "hot", "kgb": 18.3, "ncu_flush": 19.3, "kgb_mhz": 1980.0, "ncu_flush_mhz": 1875.0}]
    (k,) = b.done_when(rows)["kernels"]
    assert not k["in_band"] and k["cycles_ratio"] == pytest.approx(18.3 * 1980 / (19.3 * 1875))
    assert "1980/1875" in b.format_done_when(b.done_when(rows))


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
import importlib.util, itertools, math, sys, torch
spec = importlib.util.spec_from_file_location("bt", {str(SCRIPT)!r}); b = importlib.util.module_from_spec(spec)
sys.modules["bt"] = b; spec.loader.exec_module(b)
tiny = {{"torch.add": (300,), "triton add": (300,), "torch.sum": (300,), "copy_": (300,),
        "torch.mm": (8, "float32"), "triton row sum": (3, 70), "torch.argmax": (300,), "torch.cos": (300,),
        "torch.softmax": (3, 70), "torch.cumsum": (3, 70), "torch.index_select": (3, 70, 20), "triton empty": (1,)}}
ref = {{"torch.add": lambda x, y: x + y, "triton add": lambda x, y: x + y, "torch.sum": lambda x: x.sum(),
       "copy_": lambda d, s: s, "torch.mm": lambda x, y: x @ y, "triton row sum": lambda x, d: x.sum(d),
       "torch.argmax": lambda x: torch.tensor(max(range(x.numel()), key=lambda i: x[i].item())),
       "torch.cos": lambda x: torch.tensor([math.cos(v) for v in x.tolist()]),
       "torch.softmax": lambda x, d: x.exp() / x.exp().sum(d, keepdim=True),
       "torch.cumsum": lambda x, d: torch.tensor([list(itertools.accumulate(r)) for r in x.tolist()]),
       "torch.index_select": lambda x, d, i: torch.stack([x[:, j] for j in i.tolist()], dim=1),
       "triton empty": lambda x: None}}
assert set(tiny) == {{f[0] for f in b.FLAGGEMS.values()}} | {{"triton add", "torch.mm", "triton row sum", "copy_",
                                                            "triton empty"}}
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


def test_done_when_sets_each_kernel_beside_ncus_own_spread_over_its_calls(b):
    rows = [{"case": "noisy", "kgb": 15.0, "ncu_flush": 15.6, "ncu_flush_calls": [14.9, 15.6, 16.2]},
            {"case": "biased", "kgb": 15.0, "ncu_flush": 16.0, "ncu_flush_calls": [15.9, 16.0, 16.1]},
            {"case": "old", "kgb": 15.0, "ncu_flush": 16.0}]
    d = b.done_when(rows)
    got = {k["case"]: (k["in_band"], k["in_ncu_range"], k["ncu_spread"] and round(k["ncu_spread"], 4)) for k in d["kernels"]}
    assert got == {"noisy": (False, True, round(16.2 / 14.9 - 1, 4)), "biased": (False, False, round(16.1 / 15.9 - 1, 4)),
                   "old": (False, None, None)}
    assert d["out_of_band_in_ncu_range"] == 1
    table = b.format_done_when(d)
    assert "0 of 3 kernels" in table and "1 inside the range" in table


def test_the_child_measures_as_many_calls_as_asked(b):
    assert b.measured_calls(20, 12) == {"first": 7, "last": 19}


# ---------------------------------------------------------------- FlagGems pairs


def test_every_flaggems_op_has_its_native_op_at_two_shared_sizes(b):
    cases = b.pair_cases()
    assert {c.family for c in cases} == set(b.FLAGGEMS) | {v[0] for v in b.FLAGGEMS.values()}
    assert {"flaggems " + op for op in ("add", "sum", "argmax", "cos", "softmax", "cumsum", "index_select")} <= set(
        b.FLAGGEMS)
    for fam, (native, module, attr) in b.FLAGGEMS.items():
        fg = [c for c in cases if c.family == fam]
        assert len(fg) == 2 and module.startswith("flag_gems.ops.") and attr
        for c in fg:
            (nat,) = [n for n in cases if n.family == native and n.params == c.params]
            assert nat.size == c.size and c.id == "fg_" + nat.id and b.CASES[c.id] == c and b.CASES[nat.id] == nat
    assert b.CASES["add_16777216"].family == "torch.add"  # a pair reuses the spread's case of the same size


def test_select_cases_by_id_family_and_pairs(b):
    assert b.select_cases([], []) == list(b.CASES)
    pairs = b.select_cases([], ["pairs"])
    assert set(pairs) == {c.id for c in b.pair_cases()} and len(pairs) == 2 * 2 * len(b.FLAGGEMS)
    assert all(pairs[i + 1] == "fg_" + pairs[i] for i in range(0, len(pairs), 2))  # halves side by side
    assert b.select_cases(["mm_256_float32"], ["flaggems sum"]) == ["fg_sum_33554432", "fg_sum_134217728",
                                                                     "mm_256_float32"]
    assert set(b.select_cases([], ["flaggems"])) == {c.id for c in b.pair_cases() if c.family in b.FLAGGEMS}
    assert b.select_cases([], ["torch.mm"]) == [c for c in b.CASES if c.startswith("mm_")]
    with pytest.raises(ValueError, match="flaggems mm"):
        b.select_cases([], ["flaggems mm"])
    with pytest.raises(ValueError, match="add_3"):
        b.select_cases(["add_3"], [])


def test_flaggems_is_imported_only_for_its_cases_and_a_failure_says_why(b):
    import torch

    seen = []

    def no_wheel(name):
        seen.append(name)
        raise ModuleNotFoundError(f"No module named {name.split('.')[0]!r}")

    with pytest.raises(b.FlagGemsUnavailable, match=r"flag_gems.ops.cumsum.cumsum: ModuleNotFoundError"):
        b.build(b.CASES["fg_cumsum_4096x4096"], torch.device("cpu"), import_module=no_wheel)
    b.build(b.CASES["cumsum_4096x4096"], torch.device("cpu"), import_module=no_wheel)
    assert seen == ["flag_gems.ops.cumsum"]


def test_a_flaggems_case_gets_its_native_pairs_arguments(b):
    """A stand-in flag_gems (torch's own functions) shows both halves of a pair compute on the same tensors."""
    import types

    import torch

    fake = types.SimpleNamespace(softmax=lambda x, d: torch.softmax(x, d) * 2, index_select=torch.index_select)
    for fam, params in (("flaggems softmax", (3, 50)), ("flaggems index_select", (4, 30, 9))):
        native = b.FLAGGEMS[fam][0]
        fg_fn, fg_sets = b.build(b.Case("f", fam, "", params), torch.device("cpu"), import_module=lambda _: fake)
        nat_fn, nat_sets = b.build(b.Case("n", native, "", params), torch.device("cpu"))
        a, kw = fg_sets(3)
        na, nkw = nat_sets(3)
        assert all(x.equal(y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(a, na, strict=True))
        scale = 2 if fam == "flaggems softmax" else 1
        torch.testing.assert_close(fg_fn(*a, **kw), scale * nat_fn(*na, **nkw))


def test_flaggems_missing_is_found_without_importing_it(b, monkeypatch):
    monkeypatch.setattr(b.importlib.util, "find_spec", lambda name: None)
    assert "flag_gems is not installed" in b.flaggems_missing()
    monkeypatch.setattr(b.importlib.util, "find_spec", lambda name: object())
    assert b.flaggems_missing() == ""


def test_a_case_the_child_skipped_is_not_retried_and_keeps_its_reason(b, monkeypatch, tmp_path):
    stream, plan = _child_stream(b, [("a", ["randn", "first call"], [[("k", 4000)]] * (b.NCU_WARMUP + b.NCU_CALLS))])
    plan.append({"case": "fg_x", "error": "skipped: flag_gems.ops.sum.sum: ImportError: no vendor"})
    got = b.ncu_case_times(b.parse_ncu_csv(_csv(stream)), plan)
    assert got["a"]["us"] == pytest.approx(4.0)  # the untimed first call's kernels fall outside the measured calls
    assert got["fg_x"] == {"us": None, "error": "skipped: flag_gems.ops.sum.sum: ImportError: no vendor"}
    reruns = []
    monkeypatch.setattr(b, "run_ncu", lambda ncu, cache, ids, work, t: reruns.append(ids) or {
        ids[0]: {"us": 7.0}})
    got["b"] = {"us": None, "error": "timeout after 120s"}
    b._retry_alone("ncu", "none", ["a", "fg_x", "b"], got, tmp_path, b.time.monotonic() + 100, 1)
    assert reruns == [["b"]] and got["b"]["us"] == 7.0 and got["fg_x"]["us"] is None


def _pair_rows(nat_kgb, fg_kgb, nat_ncu, fg_ncu, size="2^25 f32", op="sum"):
    native = {"add": "torch.add", "sum": "torch.sum"}[op]
    return [{"case": f"{op}_{size}", "family": native, "size": size, "kgb": nat_kgb, "ncu_flush": nat_ncu},
            {"case": f"fg_{op}_{size}", "family": f"flaggems {op}", "size": size, "kgb": fg_kgb, "ncu_flush": fg_ncu}]


def test_speedups_pair_rows_by_size_and_judge_kgb_against_ncu(b):
    rows = (_pair_rows(40.0, 20.0, 41.0, 20.0)  # 2.0x by kgb, 2.05x by ncu: ratio 0.976, within
            + _pair_rows(40.0, 50.0, 40.0, 47.5, size="2^27 f32")  # 0.8x vs 0.842x: ratio 0.95, not within
            + _pair_rows(8.0, 4.0, 8.0, 4.0, op="add", size="2^20 f32")  # within, but 4 µs: under the floor
            + _pair_rows(30.0, 20.0, None, 20.0, op="add", size="2^24 f32")  # no ncu time: not judged
            + [{"case": "fg_sum_x", "family": "flaggems sum", "size": "2^9 f32", "kgb": 5.0, "ncu_flush": 5.0},
               {"case": "mm", "family": "torch.mm", "size": "2^9 f32", "kgb": 5.0, "ncu_flush": 5.0}])
    pairs = {(p["op"], p["size"]): p for p in b.speedups(rows)}
    assert len(pairs) == 5  # one per FlagGems row; torch.mm is no FlagGems op's native
    p = pairs[("sum", "2^25 f32")]
    assert p["native"] == "sum_2^25 f32" and p["flaggems"] == "fg_sum_2^25 f32"
    assert p["kgb_speedup"] == pytest.approx(2.0) and p["ncu_flush_speedup"] == pytest.approx(2.05)
    assert p["ratio"] == pytest.approx(2.0 / 2.05) and p["within"] is True and p["floor"] is True
    big = pairs[("sum", "2^27 f32")]
    assert big["ratio"] == pytest.approx(0.95) and big["within"] is False
    assert pairs[("add", "2^20 f32")]["within"] is True and pairs[("add", "2^20 f32")]["floor"] is False
    assert pairs[("add", "2^24 f32")]["ncu_flush_speedup"] is None and pairs[("add", "2^24 f32")]["within"] is None
    assert pairs[("sum", "2^9 f32")]["native"] is None and pairs[("sum", "2^9 f32")]["within"] is None
    s = b.speedup_summary(b.speedups(rows))
    assert (s["measured"], s["within"], s["measured_floor"], s["within_floor"]) == (3, 2, 2, 1)
    table = b.format_speedups(b.speedups(rows))
    assert "0.950         -  NO" in table and "0.976         -  yes" in table and "(<10us)" in table
    assert len(table.splitlines()) == 7


def test_speedups_tolerance_is_three_percent_either_way(b):
    def within(kgb_fg):
        return b.speedups(_pair_rows(100.0, kgb_fg, 100.0, 50.0))[0]["within"]

    assert within(50.0 / 1.029) and within(50.0 / 0.971)
    assert not within(50.0 / 1.031) and not within(50.0 / 0.969)


def test_ncu_times_count_each_calls_kernels(b):
    calls = [[("gemm", 10_000), ("splitk_reduce", 500)]] * (b.NCU_WARMUP + b.NCU_CALLS)
    stream, plan = _child_stream(b, [("m", ["randn"], calls), ("a", [], [[("add", 2000)]] * len(calls))])
    got = b.ncu_case_times(b.parse_ncu_csv(_csv(stream)), plan)
    assert got["m"]["kernels"] == 2 and got["a"]["kernels"] == 1
    assert b.kernel_counts([("x", 1.0), (b.FLUSH_NAME, 1.0), ("k", 1.0), ("k", 2.0), (b.FLUSH_NAME, 1.0)]) == [2, 0]


def test_ncus_cost_per_kernel_comes_from_the_empty_kernel_and_is_taken_off_per_kernel(b):
    rows = [{"case": b.EMPTY_CASE, "kgb": 0.9, "ncu_flush": 2.3, "ncu_flush_kernels": 1},
            {"case": "one", "kgb": 20.0, "ncu_flush": 21.4, "ncu_flush_kernels": 1},
            {"case": "two", "kgb": 54.9, "ncu_flush": 57.7, "ncu_flush_kernels": 2},
            {"case": "old", "kgb": 30.0, "ncu_flush": 30.0}]
    cost = b.ncu_kernel_cost(rows)
    assert cost == pytest.approx(1.4)
    assert b.less_cost(rows[2], cost) == pytest.approx(54.9) and b.less_cost(rows[3], cost) is None
    assert b.less_cost(rows[1], None) is None and b.less_cost({"ncu_flush": 2.0, "ncu_flush_kernels": 2}, 1.4) is None
    d = b.done_when(rows, cost_us=cost)
    got = {k["case"]: (k["in_band"], k["in_band_less_cost"]) for k in d["kernels"]}
    assert got == {"one": (False, True), "two": (False, True), "old": (True, None)}
    assert (d["in_band"], d["in_band_less_cost"], d["less_cost_measured"]) == (1, 2, 2)
    assert "1.40 us" in b.format_done_when(d) and "2 of 2 in band" in b.format_done_when(d)
    assert b.ncu_kernel_cost(rows[1:]) is None and b.done_when(rows)["ncu_kernel_cost_us"] is None


def test_speedups_less_ncus_cost_per_kernel(b):
    rows = _pair_rows(10.0, 54.9, 11.4, 57.7)
    rows[0]["ncu_flush_kernels"], rows[1]["ncu_flush_kernels"] = 1, 2
    (p,) = b.speedups(rows, cost_us=1.4)
    assert p["within"] is False and p["ratio_less_cost"] == pytest.approx(1.0) and p["within_less_cost"] is True
    s = b.speedup_summary([p])
    assert (s["within_less_cost"], s["measured_less_cost"]) == (1, 1)
    assert b.speedups(rows)[0]["within_less_cost"] is None
