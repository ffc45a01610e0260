"""`kgb report`: speedups against each baseline, fast_p, geomean and SOL from a results file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelgenbench.cli.main import app
from kernelgenbench.evaluator.report import (
    collect,
    fast_p,
    floor_note,
    read_results,
    render_html,
    render_text,
    summary_rows,
)


def _timing(us: float, launch_bound: bool = False) -> dict:
    # The median differs from the headline so that a report reading the wrong field fails.
    return {"available": True, "time_us": us, "median_us": us * 1.5 + 1.0, "launch_bound": launch_bound}


def _rows() -> list[dict]:
    rows = []
    # aten/a: 2x and 8x faster than the reference on two workloads -> geomean 4x; at 50% of SOL.
    rows.append({"kind": "task", "task_id": "aten/a", "candidate_id": "c0", "source": "aten",
                 "category": "elementwise", "status": "passed"})
    for wid, us, ref in (("p0", 10.0, 20.0), ("p1", 10.0, 80.0)):
        rows.append({"kind": "workload", "task_id": "aten/a", "candidate_id": "c0", "workload_id": wid,
                     "status": "passed", "timing": _timing(us),
                     "baselines": {"reference": _timing(ref), "native": _timing(ref)},
                     "sol": {"available": True, "floor_us": 5.0}})
    # vllm/b: correct, 0.5x the reference.
    rows.append({"kind": "task", "task_id": "vllm/b", "candidate_id": "c0", "source": "vllm",
                 "category": "normalization", "status": "passed"})
    rows.append({"kind": "workload", "task_id": "vllm/b", "candidate_id": "c0", "workload_id": "p0",
                 "status": "passed", "timing": _timing(4.0, True),
                 "baselines": {"reference": _timing(2.0), "native": {"available": False, "reason": "no vllm"}},
                 "sol": {"available": False}})
    # cublas/c: incorrect; its (fast) timing must not count.
    rows.append({"kind": "task", "task_id": "cublas/c", "candidate_id": "c0", "source": "cublas",
                 "category": "gemm", "status": "incorrect_numerics"})
    return rows


def test_speedups_fast_p_and_sol() -> None:
    cands = {c.task_id: c for c in collect(_rows())}
    assert cands["aten/a"].speedup("reference") == pytest.approx(4.0)
    assert cands["aten/a"].sol_fraction == pytest.approx(0.5)
    assert cands["vllm/b"].speedup("native") is None
    allc = list(cands.values())
    assert fast_p(allc, 0.0, "reference") == pytest.approx(2 / 3)  # the incorrect one never counts
    assert fast_p(allc, 1.0, "reference") == pytest.approx(1 / 3)
    assert fast_p(allc, 4.5, "reference") == 0.0
    assert fast_p(allc, 0.0, "no-such-baseline") is None  # nothing to compare with is not "never faster"
    # vllm/b has no native baseline: it is left out of the native share (aten/a faster, cublas/c incorrect)
    assert fast_p(allc, 0.0, "native") == pytest.approx(1 / 2)
    assert fast_p([cands["vllm/b"]], 0.0, "native") is None
    overall = [r for r in summary_rows(allc, "reference") if r["source"] == "all"][0]
    assert overall["geomean_speedup"] == pytest.approx((4.0 * 0.5) ** 0.5)
    assert overall["correct"] == pytest.approx(2 / 3) and overall["launch_bound_workloads"] == 1
    page = render_html(allc)
    # plots: correctness, speedup against reference and native, SOL
    assert page.count("<svg") == 4 and "aten/a [elementwise]" in page and "incorrect_numerics" in page


def test_results_written_before_time_us_use_their_median_as_the_headline() -> None:
    rows = _rows()
    for r in rows:
        for t in [r.get("timing")] + list((r.get("baselines") or {}).values()):
            if t and "time_us" in t:
                t["median_us"] = t.pop("time_us")
    cands = {c.task_id: c for c in collect(rows)}
    assert cands["aten/a"].speedup("reference") == pytest.approx(4.0)
    assert cands["aten/a"].sol_fraction == pytest.approx(0.5)


def test_cli_report_writes_html(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    res = tmp_path / "r.jsonl"
    res.write_text("\n".join(json.dumps(r) for r in _rows()) + "\n{\"kind\": \"ta")  # torn last line
    assert len(read_results(res)) == len(_rows())
    out = CliRunner().invoke(app, ["report", str(res), "--html", str(tmp_path / "r.html")])
    assert out.exit_code == 0, out.output
    assert "speedup against the reference baseline" in out.output
    assert (tmp_path / "r.html").read_text().startswith("<!doctype html>")


def test_a_corrupt_results_file_is_a_one_line_error(tmp_path: Path) -> None:
    res = tmp_path / "r.jsonl"
    res.write_text("garbage\n{}\n")
    with pytest.raises(Exception, match=r"r.jsonl:1: not a JSON line"):
        read_results(res)


def test_timings_under_the_floor_are_counted_apart_not_as_speed() -> None:
    rows = _rows()
    # aten/a gets a third workload timed at 0.1x its floor: forged or broken, never a 800x speedup.
    rows.append({"kind": "workload", "task_id": "aten/a", "candidate_id": "c0", "workload_id": "p2",
                 "status": "passed", "timing": {**_timing(0.5), "below_floor": True, "floor_ratio": 0.1},
                 "baselines": {"reference": _timing(400.0), "native": {**_timing(4.0), "below_floor": True}},
                 "sol": {"available": True, "floor_us": 5.0}})
    cands = {c.task_id: c for c in collect(rows)}
    a = cands["aten/a"]
    assert a.speedup("reference") == pytest.approx(4.0) and a.sol_fraction == pytest.approx(0.5)
    assert (a.below_floor, a.baselines_below_floor) == (1, 1)
    allc = list(cands.values())
    assert fast_p(allc, 4.5, "reference") == 0.0
    overall = [r for r in summary_rows(allc, "reference") if r["source"] == "all"][0]
    assert overall["geomean_speedup"] == pytest.approx((4.0 * 0.5) ** 0.5)
    assert (overall["below_floor"], overall["baselines_below_floor"]) == (1, 1)
    text = render_text(allc)
    assert "1 candidate workload timing(s) under the speed-of-light floor" in text
    assert "1 baseline timing(s) under the floor" in text
    assert "Under the speed-of-light floor" in render_html(allc)
    assert floor_note(list(collect(_rows()))) == ""


def _cpu_rows() -> list[dict]:
    caveats = ["Triton's interpreter computes bf16 arithmetic wrongly", "autotune with several configs does not run"]
    platform = {"device_name": "x86_64", "interpreter": True, "caveats": caveats}
    return [
        {"kind": "task", "task_id": "aten/add.Tensor", "candidate_id": "a", "source": "aten", "category": "elementwise",
         "status": "passed", "workloads_run": 1, "workloads_passed": 1, "platform": platform},
        {"kind": "task", "task_id": "vllm/rms_norm", "candidate_id": "b", "source": "vllm", "category": "normalization",
         "status": "incorrect_numerics", "evidence": "workload w0: max abs err 3.2\nmore", "workloads_run": 1,
         "platform": platform},
        {"kind": "task", "task_id": "aten/nope", "candidate_id": "c", "status": "not_in_dataset", "platform": platform},
    ]


def test_a_cpu_report_has_a_per_task_table_and_the_interpreters_caveats() -> None:
    import re

    cands = collect(_cpu_rows())
    text = render_text(cands)
    assert "no timings in this file" in text
    assert re.search(r"vllm/rms_norm +b +incorrect_numerics +0/1 +- +workload w0: max abs err 3.2$", text, re.M)
    assert "caveat: Triton's interpreter computes bf16 arithmetic wrongly" in text
    page = render_html(cands)
    assert "<h2>Per task</h2>" in page and '<td class="failed">incorrect_numerics</td>' in page
    assert '<td class="passed">passed</td>' in page and "bf16 arithmetic" in page and "nothing timed" not in page
    assert "1 for tasks not in the dataset (left out)" in page
    # the correctness plot has one bar per judged task, with a legend naming each source
    legend = re.search(r'<g class="legend">(.*?)</g>', page)
    assert legend and ">aten<" in legend[1] and ">vllm<" in legend[1]


def test_plot_labels_fit_their_margin() -> None:
    import re

    long = "aten/_scaled_dot_product_flash_attention_for_cpu_backward [attention] #model-x#0"
    rows = [{"kind": "task", "task_id": long.split(" ")[0], "candidate_id": "model-x#0", "source": "aten",
             "category": "attention", "status": "passed"},
            {"kind": "workload", "task_id": long.split(" ")[0], "candidate_id": "model-x#0", "workload_id": "p0",
             "status": "passed", "timing": _timing(10.0), "baselines": {"reference": _timing(20.0)},
             "sol": {"available": True, "floor_us": 5.0}}]
    page = render_html(collect(rows))
    svg = next(s for s in page.split("<svg")[1:] if "speedup vs reference" in s)
    (label_x,) = {float(x) for x in re.findall(r'<text x="([\d.]+)" y="[\d.]+" font-size="11" text-anchor="end"', svg)}
    assert label_x >= 6.0 * len(long)  # right-aligned at the margin: the whole label is inside the picture
    assert '<g class="legend">' in svg and ">aten<" in svg
