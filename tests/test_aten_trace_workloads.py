"""The ATen extractor takes curated tasks' performance workloads from the committed model trace."""

from __future__ import annotations

import torch
from torchgen.model import FunctionSchema

from kernelgenbench.evaluator.inputs import materialize_arg
from kernelgenbench.extractors.aten import signature, trace_workloads
from kernelgenbench.extractors.aten.pipeline import _Workloads
from kernelgenbench.trace import data as trace_data


def _rec(schema: str, category: str) -> dict:
    fs = FunctionSchema.parse(schema)
    name, overload = str(fs.name.name), fs.name.overload_name
    q = name + (f".{overload}" if overload else "")
    return {"id": f"aten/{q}", "name": name, "overload": overload, "category": category,
            "params": signature.params(fs)}


def _big_shapes(q: str) -> list[dict]:
    return [s for s in trace_data.load()["ops"][q]["shapes"]
            if trace_workloads.MIN_BYTES <= s["bytes"] <= trace_workloads.MAX_BYTES]


def test_mm_takes_the_most_called_traced_shapes_with_their_models():
    rec = _rec("mm(Tensor self, Tensor mat2) -> Tensor", "matmul")
    workloads, _, _ = _Workloads({}, 8).build(rec, None, curated=True, opinfo=False)
    perf = [w for w in workloads if w["purpose"] == "performance"]
    big = _big_shapes("mm")
    assert len(perf) == min(trace_workloads.PER_TASK, len(big)) >= 3
    assert not any(w["id"] == "default-performance" for w in workloads)
    for w, shape in zip(perf, big, strict=False):
        assert w["origin"] == "trace:" + ",".join(shape["models"])
        assert w["args"]["self"]["shape"] == shape["args"]["self"]["tensor"]["shape"]
        assert w["args"]["self"]["dtype"] == "bfloat16"
        assert "calls per training step" in w["description"]
        # a transposed weight keeps its strides: the kernel must handle the layout models give it
        if "stride" in shape["args"]["mat2"]["tensor"]:
            assert w["args"]["mat2"]["strides"] == shape["args"]["mat2"]["tensor"]["stride"]


def test_an_out_variant_adopts_its_functional_overloads_traced_shapes():
    rec = _rec("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", "matmul")
    workloads, _, _ = _Workloads({}, 8).build(rec, "mm", curated=True, opinfo=False)
    perf = [w for w in workloads if w["purpose"] == "performance"]
    assert len(perf) >= 3 and all(w["origin"].startswith("trace:") for w in perf)
    for w in perf:
        m, n = w["args"]["self"]["shape"][0], w["args"]["mat2"]["shape"][1]
        assert w["args"]["out"]["shape"] == [m, n]


def test_index_arguments_are_drawn_in_range_of_the_dimension_they_index():
    rec = _rec("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
               "bool sparse=False) -> Tensor", "embedding")
    perf = trace_workloads.trace_workloads(rec)
    assert perf
    for w in perf:
        init = w["args"]["indices"]["init"]
        assert init == {"dist": "randint", "low": 0, "high": w["args"]["weight"]["shape"][0]}
        gen = torch.Generator().manual_seed(0)
        idx = materialize_arg({**w["args"]["indices"], "shape": [64]}, gen=gen, device="cpu")
        assert int(idx.max()) < w["args"]["weight"]["shape"][0]


def test_an_op_the_trace_never_calls_keeps_its_default_workload():
    rec = _rec("acosh(Tensor self) -> Tensor", "pointwise")
    assert trace_workloads.trace_workloads(rec) == []
    workloads, _, _ = _Workloads({}, 8).build(rec, None, curated=True, opinfo=False)
    assert [w["id"] for w in workloads if w["purpose"] == "performance"] == ["default-performance"]


def test_launch_overhead_shapes_are_left_out():
    for q, entry in trace_data.load()["ops"].items():
        small = [s for s in entry["shapes"] if s["bytes"] < trace_workloads.MIN_BYTES]
        if small and len(small) == len(entry["shapes"]):
            name, _, overload = q.partition(".")
            rec = {"id": f"aten/{q}", "name": name, "overload": overload, "params": []}
            assert trace_workloads.trace_workloads(rec) == []
            return
    raise AssertionError("the trace has no op whose shapes are all small")
