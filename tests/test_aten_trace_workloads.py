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
        assert w["origin"] == trace_workloads.origin(shape)
        assert w["origin"] == f"trace:{'+'.join(shape['phases'])}:{','.join(shape['models'])}"
        assert w["args"]["self"]["shape"] == shape["args"]["self"]["tensor"]["shape"]
        assert w["args"]["self"]["dtype"] == "bfloat16"
        assert f"{shape['calls']} calls per " in w["description"] and shape["models"][0] in w["description"]
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


def test_origin_names_the_phases_and_reads_files_from_before_phases():
    shape = {"models": ["gpt2", "opt-1.3b"], "calls": 3, "phases": ["train", "generate"]}
    assert trace_workloads.origin(shape) == "trace:train+generate:gpt2,opt-1.3b"
    assert trace_workloads._calls(shape) == "3 calls per training step / generation over gpt2, opt-1.3b"
    assert trace_workloads.origin({"models": ["gpt2"], "calls": 1}) == "trace:train:gpt2"


def _registered(q: str) -> dict | None:
    """The task-record stub of overload `q` ('add.Tensor', 'mm') from the schema torch registers."""
    name, _, overload = q.partition(".")
    packet = getattr(torch.ops.aten, name, None)
    op = getattr(packet, overload or "default", None) if packet is not None else None
    if op is None:
        return None
    schema = str(op._schema).removeprefix("aten::")
    try:
        return _rec(schema, "traced")
    except Exception:  # a schema torchgen's parser does not take (none among the curated today)
        return None


def test_curated_overloads_take_three_workloads_where_the_trace_has_three_shapes():
    from kernelgenbench.extractors.aten.data_files import curated_names
    from kernelgenbench.trace.rank import base_name

    curated = set(curated_names())
    short = []
    for q, entry in trace_data.load()["ops"].items():
        if base_name(q) not in curated:
            continue
        rec = _registered(q)
        if rec is None:
            continue
        # every traced shape of a workload's size must become one: none may be lost to an argument the
        # extractor cannot express (a number where the schema wants a tensor is a wrapped 0-dim one)
        eligible = [s for s in entry["shapes"] if trace_workloads.MIN_BYTES <= s["bytes"] <= trace_workloads.MAX_BYTES]
        got = trace_workloads.trace_workloads(rec)
        if len(got) < min(3, len(eligible)):
            short.append(q)
    assert not short


def test_a_number_passed_for_a_tensor_becomes_the_0_dim_tensor_torch_wraps_it_in():
    rec = _rec("div.Tensor(Tensor self, Tensor other) -> Tensor", "pointwise")
    traced = {"self": {"tensor": {"shape": [4096, 4096], "dtype": "bfloat16"}}, "other": {"float": 0.5}}
    args = trace_workloads.workload_args(rec, traced)
    assert args["other"] == {"kind": "tensor", "shape": [], "dtype": "float64",
                             "init": {"dist": "constant", "value": 0.5}}
    gen = torch.Generator().manual_seed(0)
    other = materialize_arg(args["other"], gen=gen, device="cpu")
    self_ = materialize_arg(args["self"], gen=gen, device="cpu")
    assert other.dim() == 0 and float(other) == 0.5 and torch.div(self_, other).dtype == torch.bfloat16
    traced["other"] = {"value": 2}
    assert trace_workloads.workload_args(rec, traced)["other"]["dtype"] == "int64"
