"""The vLLM extractor on the real source distributions of 0.13.0 and 0.33.0 (downloaded once, cached)."""

from __future__ import annotations

import collections
from typing import Any

import pytest
from vllm_sources import sdist_tree

from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.extractors.vllm.curated import load_curated_data
from kernelgenbench.extractors.vllm.extract import Extraction, extract
from kernelgenbench.extractors.vllm.records import NO_GENERATOR, SourceInfo, schema_differences
from kernelgenbench.extractors.vllm.schemas import canonical_schema


@pytest.fixture(scope="module")
def v013() -> Extraction:
    tree = sdist_tree("0.13.0")
    return extract(tree.root, SourceInfo(tree.version, tree.commit))


@pytest.fixture(scope="module")
def v033() -> Extraction:
    tree = sdist_tree("0.33.0")
    return extract(tree.root, SourceInfo(tree.version, tree.commit))


def by_id(x: Extraction) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in x.records}


def kinds(x: Extraction) -> collections.Counter[str]:
    return collections.Counter(r["details"]["vllm"]["kind"] for r in x.records)


def wrapper_entries(x: Extraction) -> list[str]:
    """Curated entries named after a vllm/_custom_ops.py function rather than a registered op."""
    registered = {r["name"] + (f".{r['overload']}" if r["overload"] else "") for r in x.records
                  if r["details"]["vllm"]["kind"] == "registered"}
    return sorted(f"vllm/{op}" for op in load_curated_data().entries if op not in registered)


def test_013_one_valid_record_per_def(v013: Extraction) -> None:
    assert kinds(v013)["registered"] == 171
    assert sorted(r["id"] for r in v013.records if r["details"]["vllm"]["kind"] == "wrapper") == wrapper_entries(v013)
    assert len(by_id(v013)) == len(v013.records)
    assert [r["id"] for r in v013.records if record_errors(r)] == []
    assert v013.skipped == () and v013.invalid == ()
    assert (v013.source.version, v013.source.commit) == ("0.13.0", "72506c983")
    assert collections.Counter(r["details"]["vllm"]["namespace"] for r in v013.records) == collections.Counter({
        "_C": 122, "_C_custom_ar": 16, "_moe_C": 13, "_C_cache_ops": 12, "_rocm_C": 4, "_C_cuda_utils": 2,
        "_C_utils": 1, "_C_cpu": 1}) + collections.Counter(
        by_id(v013)[i]["details"]["vllm"]["namespace"] for i in wrapper_entries(v013))


def test_013_wrapper_level_curated_name(v013: Extraction) -> None:
    r = by_id(v013).get("vllm/gptq_marlin_moe_repack")
    if r is None:
        pytest.skip("no curated entry names the gptq_marlin_moe_repack wrapper")
    assert r["signature"] == ("gptq_marlin_moe_repack(Tensor b_q_weight, Tensor perm, int size_k, int size_n, "
                              "int num_bits, bool is_a_8bit=False) -> Tensor")
    d = r["details"]["vllm"]
    assert (d["kind"], d["wraps"], d["namespace"], r["provenance"]["file"]) == (
        "wrapper", ["vllm/gptq_marlin_repack"], "_C", "vllm/_custom_ops.py")
    assert d["reference_status"] == "ok"  # the entry says SymInt where the annotation says int


def test_013_exact_schemas_locations_guards_keys(v013: Extraction) -> None:
    rs = by_id(v013)
    rms = rs["vllm/rms_norm"]
    assert rms["signature"] == "rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()"
    assert (rms["provenance"]["file"], rms["provenance"]["line"], rms["provenance"]["commit"]) == (
        "csrc/torch_bindings.cpp", 154, "72506c983")
    assert [(p["name"], p["type"], p["mutable"]) for p in rms["params"]] == [
        ("result", "Tensor!", True), ("input", "Tensor", False), ("weight", "Tensor", False), ("epsilon", "float", False)]
    assert (rms["platforms"], rms["details"]["vllm"]["dispatch_keys"], rms["entry_point"]) == (["cuda", "rocm"], ["CUDA"], "rms_norm")
    pa = rs["vllm/paged_attention_v1"]["signature"]
    assert pa.startswith("paged_attention_v1(    Tensor! out, Tensor query, Tensor key_cache,    Tensor value_cache,")
    assert pa.endswith("int blocksparse_head_sliding_step) -> ()")
    cv = rs["vllm/convert_vertical_slash_indexes"]
    assert (cv["details"]["vllm"]["guards"], cv["platforms"]) == (["!defined(USE_ROCM)"], ["cuda"])
    # the schema repeats q_seqlens; the wrapper passes kv_seqlens there
    assert [p["name"] for p in cv["params"]][4:6] == ["q_seqlens", "kv_seqlens"]
    assert rs["vllm/swap_blocks"]["details"]["vllm"]["namespace"] == "_C_cache_ops"
    assert rs["vllm/get_cuda_view_from_cpu_tensor"]["details"]["vllm"]["dispatch_keys"] == ["CPU"]
    assert rs["vllm/LLMM1"]["platforms"] == ["rocm"] and rs["vllm/LLMM1"]["details"]["vllm"]["namespace"] == "_rocm_C"
    cpu = rs["vllm/rms_norm.C_cpu"]
    assert (cpu["platforms"], cpu["details"]["vllm"]["dispatch_keys"], cpu["details"]["vllm"]["primary_id"],
            cpu["reference"], cpu["provenance"]["file"]) == (["cpu"], ["CPU"], "vllm/rms_norm", None, "csrc/cpu/torch_bindings.cpp")


def test_013_name_only_def_has_no_schema(v013: Extraction) -> None:
    r = by_id(v013)["vllm/ggml_moe_get_block_size"]
    assert (r["signature"], r["params"], r["returns"]) == (None, [], [])
    assert r["details"]["vllm"]["dispatch_keys"] == ["CompositeImplicitAutograd"]
    assert r["workload_status"] == {"state": "none", "reason": NO_GENERATOR}


def test_013_wrapper_and_grid(v013: Extraction) -> None:
    d = by_id(v013)["vllm/rms_norm"]["details"]["vllm"]
    w = d["wrapper"]
    assert (w["name"], w["file"], w["line"], w["calls"]) == ("rms_norm", "vllm/_custom_ops.py", 328, ["torch.ops._C.rms_norm"])
    assert [(p["name"], p["annotation"]) for p in w["params"]] == [
        ("out", "torch.Tensor"), ("input", "torch.Tensor"), ("weight", "torch.Tensor"), ("epsilon", "float")]
    grid = next(t for t in d["tests"] if t["test"] == "tests/kernels/core/test_layernorm.py::test_rms_norm")
    axes = {tuple(a["names"]): a for a in grid["axes"]}
    assert axes[("hidden_size",)]["values"] == [[8], [768], [769], [5120], [5125], [8192]]
    assert axes[("num_tokens",)]["values"] == [[7], [83], [4096]]
    assert axes[("dtype",)]["values"] == [["float16"], ["bfloat16"], ["float32"]]
    assert axes[("device",)] == {"names": ["device"], "values": None,
                                 "unevaluated": "`CUDA_DEVICES`: call of `torch.cuda.device_count`"}


def test_013_curated_records_carry_their_reference(v013: Extraction) -> None:
    curated = load_curated_data()
    rs = by_id(v013)
    assert v013.curated_in("absent") == [] and v013.curated_in("schema_mismatch") == []
    for op, entry in curated.entries.items():
        r = rs[f"vllm/{op}"]
        d = r["details"]["vllm"]
        assert d["reference_status"] == "ok", op
        assert d["reference_checked"][0] == "0.13.0", op  # the 0.13.0 schema, checked at least there
        assert r["reference"]["function"] == entry.function and f"def {entry.function}(" in r["reference"]["code"]
        assert r["benchmarks"] == ["ms"] and r["category"] == entry.category
        purposes = {w["purpose"] for w in r["workloads"]}
        assert purposes == {"correctness", "performance"}, op
        if d["workload_source"]["kind"] == "test_grid":  # the entry's own cases are taken as they are
            assert sum(w["purpose"] == "correctness" for w in r["workloads"]) <= 8, op
        else:
            assert d["workload_source"]["reason"], op
    rms = rs["vllm/rms_norm"]
    assert rms["details"]["vllm"]["workload_source"]["kind"] == "test_grid"
    assert {w["origin"] for w in rms["workloads"] if w["purpose"] == "correctness"} == {
        "vllm-test:tests/kernels/core/test_layernorm.py::test_rms_norm"}
    assert all(w["params"]["epsilon"] == 1e-6 for w in rms["workloads"])
    uncurated = rs["vllm/gelu_new"]
    assert (uncurated["reference"], uncurated["details"]["vllm"]["reference_status"], uncurated["category"]) == (
        None, "missing", "activation")


def test_013_all_50_curated_names_have_a_reference(v013: Extraction) -> None:
    assert len(v013.curated) == 50
    assert [(c.name, c.state, c.detail) for c in v013.curated if c.state != "ok"] == []
    assert "curated with reference: 50/50" in v013.summary()


def test_033_one_valid_record_per_def(v033: Extraction, v013: Extraction) -> None:
    assert kinds(v033)["registered"] == 284
    # the wrappers curated at 0.13.0 are still in vllm/_custom_ops.py at 0.33.0
    assert sorted(r["id"] for r in v033.records if r["details"]["vllm"]["kind"] == "wrapper") == wrapper_entries(v013)
    assert [r["id"] for r in v033.records if record_errors(r)] == []
    assert (v033.source.version, v033.source.commit) == ("0.33.0", "4ba787ec9")
    ns = collections.Counter(r["details"]["vllm"]["namespace"] for r in v033.records)
    assert ns - collections.Counter(rs["details"]["vllm"]["namespace"] for rs in v033.records
                                    if rs["details"]["vllm"]["kind"] == "wrapper") == {
        "_C": 212, "_C_custom_ar": 21, "_C_cache_ops": 19, "_moe_C": 18, "_rocm_C": 10, "_C_cuda_utils": 2,
        "_flashkda_C": 2}
    rs = by_id(v033)
    out = rs["vllm/scaled_fp4_quant.out"]
    assert (out["name"], out["overload"], out["entry_point"]) == ("scaled_fp4_quant", "out", "scaled_fp4_quant_out")
    assert out["details"]["vllm"]["block"] == "STABLE_TORCH_LIBRARY_FRAGMENT"
    # separate STABLE_TORCH_LIBRARY_IMPL blocks give the keys
    assert rs["vllm/topk_softmax"]["details"]["vllm"]["dispatch_keys"] == ["CUDA"]


def test_033_schema_changes_take_the_declared_revision(v033: Extraction) -> None:
    rs = by_id(v033)
    rms = rs["vllm/rms_norm"]
    assert rms["signature"] == "rms_norm(Tensor! result, Tensor input, Tensor? weight, float epsilon) -> ()"
    d = rms["details"]["vllm"]
    # the 0.13.0 reference implements another schema; the entry declares 0.33.0's, with its adapter
    entry = load_curated_data().entries["rms_norm"]
    assert schema_differences(canonical_schema(entry.schema), d["canonical_schema"]) == [
        "- arg Tensor weight", "+ arg Tensor? weight"]
    assert (d["reference_status"], rms["reference"]["function"], rms["inputs"]["function"]) == (
        "ok", "rms_norm_v033", "make_rms_norm_inputs_v033")
    assert (d["reference_schema"], d["schema_differences"], d["reference_checked"]) == (
        d["canonical_schema"], [], ["0.33.0", "0.34.0"])
    assert {w["purpose"] for w in rms["workloads"]} == {"correctness", "performance"} and rms["benchmarks"] == ["ms"]
    outcomes = {c.name: c for c in v033.curated}
    assert outcomes["rms_norm"].state == "ok"
    assert outcomes["paged_attention_v1"].state == "removed"
    assert outcomes["gptq_marlin_gemm"].state == "ok"  # renamed marlin_gemm at 0.33.0
    marlin = rs["vllm/marlin_gemm"]
    assert (marlin["details"]["vllm"]["curated_name"], marlin["reference"]["function"]) == (
        "gptq_marlin_gemm", "marlin_gemm_v033")
    summary = v033.summary()
    assert "curated with reference: 37/50" in summary and "schema mismatches: 0;" in summary
    assert "curated removed upstream: 13 (" in summary and "paged_attention_v1" in summary
    assert rs["vllm/reshape_and_cache_flash"]["details"]["vllm"]["reference_checked"] == ["0.13.0", "0.33.0", "0.34.0"]


def test_013_one_broken_def_loses_only_itself(tmp_path, v013: Extraction) -> None:
    import shutil
    import subprocess
    import sys

    tree = sdist_tree("0.13.0")
    root = tmp_path / "vllm"
    shutil.copytree(tree.root, root)
    bindings = root / "csrc" / "torch_bindings.cpp"
    text = bindings.read_text()
    broken = text.replace('"rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> "\n      "()");',
                          '"rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> "\n      "()";', 1)
    assert broken != text
    bindings.write_text(broken)
    got = extract(root, SourceInfo(tree.version, tree.commit))
    lost = {r["id"] for r in v013.records} - {r["id"] for r in got.records}
    # Only rms_norm's own record goes; the CPU build's rms_norm keeps its suffixed id and gets no reference.
    assert lost == {"vllm/rms_norm"}, sorted(lost)
    line = text[: text.index('"rms_norm(Tensor! result')].count("\n")  # the def's `ops.def(` line
    assert any(u.startswith(f"csrc/torch_bindings.cpp:{line}:") and "skipped" in u for u in got.unreadable), got.unreadable
    assert [c.name for c in got.lost_curated] == ["rms_norm"]
    cpu = [r for r in got.records if r["name"] == "rms_norm"]
    assert cpu and all(r["reference"] is None for r in cpu)
    res = subprocess.run([sys.executable, "-c", "from kernelgenbench.cli.main import extract_main; extract_main()",
                          "vllm", "--source", str(root), "--out", str(tmp_path / "out.jsonl"), "--no-progress"],
                         capture_output=True, text=True, check=False, timeout=600)
    assert res.returncode == 1
    assert "curated op(s) rms_norm absent while 1 registration(s) could not be read (csrc/torch_bindings.cpp:" \
        in res.stderr
