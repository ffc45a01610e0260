"""Records the vLLM extractor builds for the curated attention/cache/SSM/Hadamard ops at v0.13.0: they
validate, carry the reference, and the embedded reference runs on every correctness workload through the
evaluator's own input path (make_args + load_code), leaving the inputs the schema does not mark mutable
untouched."""

from __future__ import annotations

from importlib import resources

import pytest
import torch
import yaml
from vllm_sources import code_and_tests, unpack

from kernelgenbench.dataset.record import Task
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.evaluator.inputs import load_code, make_args

extract_mod = pytest.importorskip("kernelgenbench.extractors.vllm.extract")
records_mod = pytest.importorskip("kernelgenbench.extractors.vllm.records")

_CURATED = {"concat_and_cache_mla", "convert_fp8", "copy_blocks", "copy_blocks_mla", "cp_gather_cache",
            "cp_gather_indexer_k_quant_cache", "gather_and_maybe_dequant_cache", "reshape_and_cache",
            "reshape_and_cache_flash", "swap_blocks", "paged_attention_v1", "paged_attention_v2",
            "merge_attn_states", "convert_vertical_slash_indexes", "selective_scan_fwd", "hadacore_transform"}


def _ops() -> dict:
    text = resources.files("kernelgenbench.data").joinpath("vllm_curated_attention.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["ops"]


@pytest.fixture(scope="module")
def extraction(tmp_path_factory):
    """The extractor's run over csrc/, vllm/_custom_ops.py and tests/ of the cached 0.13.0 sdist."""
    root = unpack("0.13.0", tmp_path_factory.mktemp("vllm-0.13.0-attn"), code_and_tests)
    return extract_mod.extract(root, records_mod.SourceInfo("0.13.0", None))


def test_attention_records_validate_with_references(extraction):
    assert set(_ops()) == _CURATED
    by_id = {r["id"]: r for r in extraction.records}
    assert not [line for line in extraction.invalid if line.split()[0].removeprefix("vllm/") in _CURATED]
    for op in sorted(_CURATED):
        rec = by_id.get(f"vllm/{op}")
        assert rec is not None, f"no record for {op}"
        assert record_errors(rec) == []
        assert rec["details"]["vllm"]["reference_status"] == "ok", (op, rec["details"]["vllm"])
        assert rec["reference"] is not None and rec["inputs"] is not None
        assert rec["workload_status"]["state"] == "ok", (op, rec["workload_status"])
        assert rec["category"] == _ops()[op]["category"]
    outcomes = {o.name: o.state for o in extraction.curated}
    for name in _CURATED:
        assert outcomes.get(name) == "ok", (name, outcomes.get(name))


def test_repeated_schema_name_is_renamed_after_the_wrapper(extraction):
    rec = next(r for r in extraction.records if r["id"] == "vllm/convert_vertical_slash_indexes")
    assert [p["name"] for p in rec["params"]][4:6] == ["q_seqlens", "kv_seqlens"]


@pytest.mark.parametrize("op", sorted(_CURATED))
def test_record_reference_runs_on_its_correctness_workloads(extraction, op):
    rec = next(r for r in extraction.records if r["id"] == f"vllm/{op}")
    task = Task.from_dict(rec)
    ref = load_code(task.reference)
    schema = torch._C.parse_schema(_ops()[op]["schema"])
    mutable = {p.name for p in task.params if p.mutable}
    assert mutable >= {a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write}
    correctness = [w for w in task.workloads if w.purpose == "correctness"]
    assert correctness and [w for w in task.workloads if w.purpose == "performance"]
    for w in correctness:
        kwargs = make_args(task, w, seed=5, device="cpu")
        assert set(kwargs) == {p.name for p in task.params}
        before = {k: v.clone() for k, v in kwargs.items() if isinstance(v, torch.Tensor) and k not in mutable}
        out = ref(**kwargs)
        assert (out is None) == (not task.returns)
        for k, v in before.items():  # inputs the schema does not declare mutable stay as they were
            same = torch.equal(kwargs[k].view(torch.uint8), v.view(torch.uint8)) if v.dim() else torch.equal(kwargs[k], v)
            assert same, (op, w.id, k)
