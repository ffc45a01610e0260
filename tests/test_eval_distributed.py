"""The parts of `kgb eval --ray` that need no cluster: argument filling, platform selection, resume keys by
platform, rows back to typed results, the per-platform report table, and the one-line error without Ray."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from eval_helpers import EXAMPLE_SOLUTIONS, EXAMPLE_TASKS, ROOT

import kernelgenbench
from kernelgenbench.cli.eval import fill_optional_values
from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.distributed import result_from_rows, select_kinds
from kernelgenbench.evaluator.report import platform_table
from kernelgenbench.evaluator.results import finished, resume_key
from kernelgenbench.evaluator.runner import CandidateResult, WorkloadResult
from kernelgenbench.evaluator.status import Status

NV = {"vendor": "nvidia", "device_name": "NVIDIA H200"}
AMD = {"vendor": "amd", "device_name": "AMD Instinct MI300X"}


def test_a_bare_ray_option_starts_a_local_instance_and_an_address_is_kept():
    assert fill_optional_values(["eval", "--ray"]) == ["eval", "--ray", "local"]
    assert fill_optional_values(["eval", "--ray", "--device", "auto"]) == ["eval", "--ray", "local", "--device", "auto"]
    assert fill_optional_values(["eval", "--ray", "10.0.0.1:6379", "--quiet"]) == [
        "eval", "--ray", "10.0.0.1:6379", "--quiet"]
    assert fill_optional_values(["eval", "--out", "r.jsonl"]) == ["eval", "--out", "r.jsonl"]


def test_platform_selection():
    assert select_kinds("one", ["nvidia", "cpu"]) == [None]
    assert select_kinds("all", ["nvidia", "amd", "cpu"]) == ["nvidia", "amd", "cpu"]
    assert select_kinds("amd,nvidia", ["nvidia", "amd", "cpu"]) == ["amd", "nvidia"]
    with pytest.raises(KgbError, match=r"no node of platform\(s\) \['intel'\]"):
        select_kinds("nvidia,intel", ["nvidia", "cpu"])


def _task_row(cand: str, status: str, platform: dict) -> dict:
    return CandidateResult(task_id="aten/add.Tensor", candidate_id=cand, source="aten", status=Status(status),
                           platform=platform).to_row()


def test_resume_key_is_the_platform_triple_in_a_multi_platform_run(tmp_path):
    path = tmp_path / "r.jsonl"
    rows = [_task_row("c0", "passed", NV), _task_row("c0", "incorrect_numerics", AMD)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    by_platform = finished(path, by_platform=True)
    assert set(by_platform) == {("aten/add.Tensor", "c0", "nvidia"), ("aten/add.Tensor", "c0", "amd")}
    assert by_platform[("aten/add.Tensor", "c0", "amd")]["status"] == "incorrect_numerics"
    assert set(finished(path, by_platform=False)) == {("aten/add.Tensor", "c0")}
    assert resume_key({"task_id": "t", "candidate_id": "c", "platform": {}}, True) == ("t", "c", "cpu")


def test_rows_from_an_actor_become_the_same_typed_result():
    w = WorkloadResult(task_id="aten/add.Tensor", candidate_id="c0", workload_id="w0", purpose="correctness",
                       status=Status.PASSED, rounds=2, max_abs_err=0.0, isolation="pidns")
    res = CandidateResult(task_id="aten/add.Tensor", candidate_id="c0", source="aten", status=Status.PASSED,
                          workloads=(w,), platform=NV, seed=3, isolation="pidns")
    back = result_from_rows([w.to_row(NV), res.to_row()])
    assert back.workloads == (w,)
    assert back.to_row() == res.to_row()


def test_platform_table_compares_platforms_and_lists_disagreements():
    rows = [_task_row("c0", "passed", NV), _task_row("c0", "incorrect_numerics", AMD),
            _task_row("c1", "passed", NV), _task_row("c1", "passed", AMD)]
    text = platform_table(rows)
    lines = text.splitlines()
    assert lines[1].split()[:4] == ["platform", "device", "n", "correct"]
    assert any(line.startswith("nvidia") and "100%" in line for line in lines)
    assert any(line.startswith("amd") and "50%" in line for line in lines)
    assert "verdicts that differ between platforms (1):" in text
    assert "aten/add.Tensor [c0]: nvidia passed, amd incorrect_numerics" in text
    assert platform_table(rows[::2]) == ""  # one platform: nothing to compare


def test_platforms_without_ray_is_an_error():
    with pytest.raises(KgbError, match="add ray=True"):
        kernelgenbench.evaluate({"aten/add.Tensor": "x = 1\n"}, tasks=[], platforms="all")


def test_ray_missing_is_one_line_error(tmp_path):
    # Ray hidden from the import system: what a user without the extra sees.
    code = ("import sys; sys.modules['ray'] = None\n"
            "from kernelgenbench.cli.main import main\n"
            f"sys.argv = ['kgb', 'eval', '--dataset', {str(EXAMPLE_TASKS)!r}, '--solutions', "
            f"{str(EXAMPLE_SOLUTIONS)!r}, '--device', 'cpu', '--out', {str(tmp_path / 'r.jsonl')!r}, '--ray']\n"
            "main()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "kgb: error: --ray needs Ray, an optional extra: pip install 'kernelgenbench[ray]'"]
