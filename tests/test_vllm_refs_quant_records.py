"""Records the vLLM extractor builds for the 17 quantized-weight ops at v0.13.0: they validate, carry the
reference and generator, and the embedded reference runs on every correctness workload through the
evaluator's own input path (the embedded module text, not the package import)."""

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


def _quant_ops() -> dict:
    text = resources.files("kernelgenbench.data").joinpath("vllm_curated_quant.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["ops"]


@pytest.fixture(scope="module")
def extraction(tmp_path_factory):
    """The extractor's run over csrc/, vllm/_custom_ops.py and tests/ of the cached 0.13.0 sdist."""
    root = unpack("0.13.0", tmp_path_factory.mktemp("vllm-0.13.0-quant"), code_and_tests)
    n = torch.get_num_threads()
    torch.set_num_threads(1)  # the shared CPU oversubscribes; these references run many small ops
    yield extract_mod.extract(root, records_mod.SourceInfo("0.13.0", None))
    torch.set_num_threads(n)


def test_quant_records_validate_with_references(extraction):
    by_id = {r["id"]: r for r in extraction.records}
    assert not [line for line in extraction.invalid if line.split()[0].removeprefix("vllm/") in _quant_ops()]
    for op in _quant_ops():
        rec = by_id.get(f"vllm/{op}")
        assert rec is not None, f"no record for {op}"
        assert record_errors(rec) == []
        assert rec["details"]["vllm"]["reference_status"] == "ok", (op, rec["details"]["vllm"])
        assert rec["reference"] is not None and rec["inputs"] is not None
        assert rec["workload_status"]["state"] == "ok", (op, rec["workload_status"])
        purposes = [w["purpose"] for w in rec["workloads"]]
        assert "correctness" in purposes and "performance" in purposes


@pytest.mark.parametrize("op", sorted(_quant_ops()))
def test_record_reference_runs_on_its_correctness_workloads(extraction, op):
    rec = next(r for r in extraction.records if r["id"] == f"vllm/{op}")
    task = Task.from_dict(rec)
    ref = load_code(task.reference)
    schema = torch._C.parse_schema(_quant_ops()[op]["schema"])
    mutable = {a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write}
    correctness = [w for w in task.workloads if w.purpose == "correctness"]
    assert correctness
    for w in correctness:
        kwargs = make_args(task, w, seed=5, device="cpu")
        assert set(kwargs) == {p.name for p in task.params}
        before = {k: v.clone() for k, v in kwargs.items() if isinstance(v, torch.Tensor) and k not in mutable}
        out = ref(**kwargs)
        assert (out is None) == (not task.returns)
        result = out if out is not None else kwargs[next(iter(mutable))]
        assert torch.isfinite(result.float()).all() and bool(result.float().abs().sum() > 0), (op, w.id)
        for k, v in before.items():  # inputs the schema does not declare mutable stay as they were
            assert torch.equal(kwargs[k], v), (op, w.id, k)
