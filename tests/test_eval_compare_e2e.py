"""End to end on CPU: a correct Triton moe_align_block_size that orders each expert's slots differently from
the reference passes `kgb eval` under the record's declared rule, and fails without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import run_kgb, task_rows, write_jsonl
from vllm_sources import code_and_tests, unpack

extract_mod = pytest.importorskip("kernelgenbench.extractors.vllm.extract")
records_mod = pytest.importorskip("kernelgenbench.extractors.vllm.records")

pytestmark = pytest.mark.slow

CANDIDATE = Path(__file__).resolve().parent / "candidates" / "vllm__moe_align_block_size_desc.py"


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> dict:
    """The extractor's moe_align_block_size record, with only its correctness workloads (the interpreter is slow)."""
    root = unpack("0.13.0", tmp_path_factory.mktemp("vllm-0.13.0-e2e"), code_and_tests)
    rec = next(r for r in extract_mod.extract(root, records_mod.SourceInfo("0.13.0", None)).records
               if r["id"] == "vllm/moe_align_block_size")
    # The grid's correctness cases route at most a slot or two per expert, where order cannot show; this one
    # puts about 32 slots in each of 8 runs (several blocks each).
    rec["workloads"] = [w for w in rec["workloads"] if w["purpose"] == "correctness"][:1] + [
        {"id": "many-per-expert", "purpose": "correctness", "origin": "handwritten",
         "params": {"num_tokens": 64, "topk": 4, "num_experts": 8, "block_size": 16, "pad_sorted_ids": False}}]
    rec["workload_status"] = {"state": "partial", "reason": "performance workloads dropped for the CPU test"}
    return rec


def _eval(tmp_path: Path, rec: dict, device: str = "cpu") -> dict:
    tmp_path.mkdir()
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(rec) + "\n")
    sols = write_jsonl(tmp_path / "solutions.jsonl",
                       [{"task_id": rec["id"], "code": CANDIDATE.read_text(), "candidate_id": "desc"}])
    out = tmp_path / "results.jsonl"
    proc = run_kgb("eval", "--dataset", str(tasks), "--solutions", str(sols), "--device", device, "--workers", "1",
                   "--timeout", "120", "--out", str(out), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = task_rows(out)
    return row


def test_descending_runs_pass_with_the_rule_and_fail_without(tmp_path, record):
    assert [c["mode"] for c in record["compare"]] == ["unordered_within_segments"]
    row = _eval(tmp_path / "rule", record)
    assert row["status"] == "passed", row["evidence"][:500]
    exact = {k: v for k, v in record.items() if k != "compare"}
    row = _eval(tmp_path / "exact", exact)
    assert row["status"] == "incorrect_numerics" and "sorted_token_ids" in row["evidence"], row["evidence"][:500]


@pytest.mark.gpu
def test_descending_runs_pass_on_the_full_record_on_cuda(tmp_path, tmp_path_factory):
    """On a GPU, with every workload of the record (the large performance cases are where order shows)."""
    root = unpack("0.13.0", tmp_path_factory.mktemp("vllm-0.13.0-e2e-gpu"), code_and_tests)
    rec = next(r for r in extract_mod.extract(root, records_mod.SourceInfo("0.13.0", None)).records
               if r["id"] == "vllm/moe_align_block_size")
    row = _eval(tmp_path / "rule", rec, "cuda")
    assert row["status"] == "passed", row["evidence"][:500]
