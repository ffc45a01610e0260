"""The model trace: the recorder, the committed summary file, and (with `transformers`) a tiny real trace."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest
import torch

from kernelgenbench.errors import KgbError
from kernelgenbench.extractors.aten.data_files import curated_names
from kernelgenbench.trace import data as trace_data
from kernelgenbench.trace.rank import curated_coverage, ranking
from kernelgenbench.trace.recorder import DispatchRecorder, FunctionRecorder, Recording, match_overload


def _record(fn):
    rec = Recording()
    with FunctionRecorder(rec), DispatchRecorder(rec):
        fn()
    return {(op, level): json.loads(args) for (op, level, args) in rec.calls}, rec


def test_recorder_names_arguments_by_schema_at_both_levels():
    x = torch.empty(4, 8, device="meta")
    w = torch.empty(5, 8, device="meta")
    calls, rec = _record(lambda: torch.nn.functional.linear(x, w).contiguous().sum(1))
    # linear is a CompositeImplicitAutograd op: seen at the torch level, its decomposition below it
    assert calls[("linear.default", "function")] == {"input": {"tensor": {"shape": [4, 8], "dtype": "float32"}},
                                                      "weight": {"tensor": {"shape": [5, 8], "dtype": "float32"}}}
    mm = calls[("mm.default", "dispatch")]
    assert mm["mat2"]["tensor"] == {"shape": [8, 5], "dtype": "float32", "stride": [1, 8]}
    assert calls[("sum.dim_IntList", "dispatch")]["dim"] == {"value": [1]}
    assert ("contiguous.default", "function") in calls
    assert not any(op.startswith("linear") for op, level in calls if level == "dispatch")
    assert all(n == 1 for n in rec.calls.values())


def test_item_on_meta_is_answered_and_recorded():
    x = torch.empty(3, device="meta")
    calls, _ = _record(lambda: x.sum().item())
    assert ("_local_scalar_dense.default", "dispatch") in calls and ("item.default", "function") in calls


def test_overload_matching_uses_value_types():
    x = torch.empty(2)
    assert match_overload(torch.ops.aten.to, (x, torch.float16), {})._overloadname == "dtype"
    assert match_overload(torch.ops.aten.to, (x, x), {})._overloadname == "other"
    assert match_overload(torch.ops.aten.softmax, (x, 0), {})._overloadname == "int"


def test_committed_summary_validates_and_covers_the_bar():
    data = trace_data.load()
    families = {m["family"] for m in data["models"]}
    assert len(data["models"]) >= 20
    assert {"decoder", "encoder", "encoder-decoder", "vision"} <= families
    found, missing = curated_coverage(data, curated_names())
    assert len(found) + len(missing) == len(set(curated_names()))
    assert len(found) >= 80  # the long tail (acosh, i0, polygamma, ...) no traced model calls
    # backward ran: gradient kernels are in the trace
    assert any(op.endswith("_backward") or "_backward." in op for op in data["ops"])
    top = [name for name, _, _ in ranking(data)[:10]]
    assert "mm" in top or "addmm" in top


def test_committed_summary_is_in_canonical_form():
    text = (resources.files("kernelgenbench.data") / trace_data.DATA_FILE).read_text()
    assert trace_data.dumps(json.loads(text)) == text


def test_validation_names_the_bad_entry():
    data = copy.deepcopy(trace_data.load())
    op = next(iter(data["ops"]))
    data["ops"][op]["shapes"][0]["models"] = ["no-such-model"]
    with pytest.raises(KgbError, match="unknown model"):
        trace_data.validate(data)
    data = copy.deepcopy(trace_data.load())
    data["ops"][op]["shapes"][0]["args"]["x"] = {"tensor": {"shape": [-1], "dtype": "float32"}}
    with pytest.raises(KgbError, match=op.replace(".", r"\.")):
        trace_data.validate(data)


def test_committed_summary_records_each_phase_of_the_step():
    data = trace_data.load()
    per_model = {m["name"]: m["phases"] for m in data["models"]}
    assert all(sum(p.values()) == m["calls"] for m, p in zip(data["models"], per_model.values(), strict=True))
    assert all({"train", "optimizer"} <= set(p) for p in per_model.values())
    assert "generate" in per_model["llama-2-7b"] and "data" in per_model["bert-base"]
    ops = data["ops"]
    # the optimizer's per-tensor AdamW update, the sampler's top-p sort, the collator's masking draw
    assert all(s["phases"] == ["optimizer"] for s in ops["addcdiv_"]["shapes"])
    assert any("generate" in s["phases"] for s in ops["sort"]["shapes"])
    assert any(s["phases"] == ["data"] for s in ops["bernoulli"]["shapes"])


def test_recording_counts_each_call_in_its_phase():
    rec = Recording()
    x = torch.empty(4, device="meta")
    for phase in ("train", "optimizer", "optimizer"):
        rec.phase = phase
        with DispatchRecorder(rec):
            x.add(1.0)
    (key, n), = rec.calls.items()
    assert n == 3 and rec.phases[key] == {"train": 1, "optimizer": 2}


def _tiny_llama_spec():
    transformers = pytest.importorskip("transformers")
    from kernelgenbench.trace.models import ModelSpec
    from kernelgenbench.trace.phases import sample

    def build():
        cfg = transformers.LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=2, vocab_size=256,
                                       attn_implementation="eager")
        return transformers.LlamaForCausalLM(cfg)

    def inputs():
        ids = torch.randint(0, 256, (2, 16), device="meta")
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids}

    return ModelSpec("tiny-llama", "decoder", build, inputs, "2x16",
                     generate=lambda model: sample(model, batch=2, prompt=8, vocab=256, static=True))


def test_tiny_model_trace_is_deterministic():
    spec = _tiny_llama_spec()
    from kernelgenbench.trace.run import trace_model
    from kernelgenbench.trace.summary import summarize

    texts = [trace_data.dumps(trace_data.validate(summarize([(spec, trace_model(spec))], torch_version="t",
                                                            transformers_version="x"))) for _ in range(2)]
    assert texts[0] == texts[1]
    data = json.loads(texts[0])
    ops = data["ops"]
    # 2 layers x (q, k, v, o, gate, up, down) + the LM head, in the training step's forward, the prefill
    # and the decode step
    assert ops["linear"]["calls"] == 3 * (2 * 7 + 1)
    assert "embedding_dense_backward" in ops and "_softmax_backward_data" in ops
    emb = [s for s in ops["embedding"]["shapes"] if s["phases"] == ["train"]][0]["args"]
    assert emb["weight"]["tensor"]["shape"] == [256, 64] and emb["indices"]["tensor"]["shape"] == [2, 16]
    # AdamW's update per parameter: one addcdiv_ per tensor (2 layers x 9 + embedding, final norm, LM head)
    assert ops["addcdiv_"]["calls"] == 2 * 9 + 3
    # sampling: top-p sorts the last position's logits; the static cache is zeroed for the next request
    sort = ops["sort"]["shapes"][0]
    assert sort["phases"] == ["generate"] and sort["args"]["self"]["tensor"]["shape"] == [2, 256]
    assert "zero_" in ops and set(data["models"][0]["phases"]) == {"train", "optimizer", "generate"}
