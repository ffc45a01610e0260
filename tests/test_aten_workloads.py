"""ATen workload building blocks: traced-sample attribution, tensor specs, templates, out= shapes."""

from __future__ import annotations

import json

import torch

from kernelgenbench.extractors.aten.default_workloads import resolve_dim, template_args
from kernelgenbench.extractors.aten.opinfo_workloads import _Recorder
from kernelgenbench.extractors.aten.out_workloads import out_specs
from kernelgenbench.extractors.aten.tensor_specs import tensor_spec, value_spec
from kernelgenbench.reference_impls.aten import entry_point, reference_code


def _trace(fn, wanted):
    kept, seen = {}, {}
    with _Recorder(wanted.__contains__, kept, seen, 8, "test#0"):
        fn()
    return kept


def test_a_sample_is_kept_only_for_the_overload_that_ran():
    x = torch.randn(3, 4)
    kept = _trace(lambda: torch.add(x, 2), {"add.Tensor", "add.Scalar"})
    # torch.add with a Python number binds add.Tensor (the number travels as a wrapped scalar), never
    # add.Scalar: the sample belongs to add.Tensor only, with the number as it reached that overload
    assert set(kept) == {"add.Tensor"}
    args = kept["add.Tensor"][0].args
    assert args["self"]["shape"] == [3, 4]
    assert args["other"] == {"kind": "value", "value": 2}


def test_arguments_are_recorded_before_an_in_place_op_writes_them():
    x = torch.full((2, 2), 3.0)
    kept = _trace(lambda: x.add_(1.0), {"add_.Tensor"})
    assert x[0, 0] == 4.0
    assert kept["add_.Tensor"][0].args["self"]["init"] == {"dist": "uniform", "low": 1.5, "high": 6.0}


def test_identical_samples_are_kept_once():
    x = torch.ones(2)
    kept = _trace(lambda: (torch.neg(x), torch.neg(x)), {"neg"})
    assert len(kept["neg"]) == 1


def test_tensor_specs_keep_ranges_strides_and_index_bounds():
    pos = torch.rand(4, 6) + 0.5
    spec = tensor_spec(pos.t())
    assert spec["shape"] == [6, 4] and spec["strides"] == [1, 6]
    assert spec["init"]["dist"] == "uniform" and spec["init"]["low"] >= 0.5
    idx = tensor_spec(torch.tensor([0, 3, 3, 1]))
    assert idx["init"] == {"dist": "randint", "low": 0, "high": 4}
    assert tensor_spec(torch.tensor([2, 0, 1]))["init"] == {"dist": "permutation"}
    assert tensor_spec(torch.tensor([True, False, False, False]))["init"] == {"dist": "bernoulli", "p": 0.25}
    assert value_spec([torch.ones(1), None])["items"][1] is None
    assert value_spec(float("inf")) == {"kind": "float", "value": "inf"}
    assert value_spec(torch.float16) == {"kind": "dtype", "value": "float16"}
    assert value_spec([1, 2]) == {"kind": "value", "value": [1, 2]}


def test_dim_expressions():
    dims = {"M": 4096, "L": 16}
    assert [resolve_dim(e, dims) for e in (7, "M", "L+4", "M//2", "2*L")] == [7, 4096, 20, 2048, 32]


def test_templates_fit_the_parameter_kind():
    params = [
        {"name": "self", "kind": "tensor", "default": None, "optional": False, "direction": "in"},
        {"name": "other", "kind": "scalar", "default": None, "optional": False, "direction": "in"},
        {"name": "rounding_mode", "kind": "str", "default": None, "optional": True, "direction": "in"},
    ]
    args = template_args("div", "Scalar_mode", "elementwise", params, "correctness")
    # div's template gives `other` as a tensor; for a Scalar parameter the generic rule applies
    assert args["other"] == {"kind": "float", "value": 0.5}
    assert args["rounding_mode"] == {"kind": "value", "value": "floor"}
    assert args["self"]["shape"] == [13, 24]


def test_a_factory_ops_device_is_always_the_device_under_test():
    # left to its default (None), torch.full builds on the CPU: a kernel under test on a GPU then gets a
    # CPU tensor to fill, and the reference times a CPU op (FlagGems' full failed so on the H200)
    params = [
        {"name": "size", "kind": "int_list", "default": None, "optional": False, "direction": "in"},
        {"name": "fill_value", "kind": "scalar", "default": None, "optional": False, "direction": "in"},
        {"name": "dtype", "kind": "scalar_type", "default": "None", "optional": True, "direction": "in"},
        {"name": "device", "kind": "device", "default": "None", "optional": True, "direction": "in"},
    ]
    args = template_args("full", "", "creation", params, "performance")
    assert args["device"] == {"kind": "device", "value": None}
    assert "dtype" not in args  # other defaults still apply


def test_out_tensors_are_shaped_by_the_functional_overload():
    t = {"kind": "tensor", "shape": [5, 7], "dtype": "float32", "init": {"dist": "normal"}}
    outs = out_specs("sort", {"self": t}, ["values", "indices"])
    assert (outs["values"]["shape"], outs["values"]["dtype"]) == ([5, 7], "float32")
    assert (outs["indices"]["shape"], outs["indices"]["dtype"]) == ([5, 7], "int64")


def test_entry_points_and_reference_code():
    assert entry_point("add", "Tensor") == "add_Tensor"
    assert entry_point("add_", "Tensor") == "add__Tensor"
    assert entry_point("sum", "") == "sum"
    ref = reference_code("add_", "Tensor", "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    assert "kernelgenbench" not in ref["code"].split('"""', 2)[2]
    ns: dict = {}
    exec(ref["code"], ns)
    x = torch.ones(3)
    assert ns["add__Tensor"](x, torch.ones(3), alpha=2) is x and x.tolist() == [3.0, 3.0, 3.0]


_TRACE_DUMP = ("import json, sys\n"
               "from kernelgenbench.extractors.aten.opinfo_workloads import trace_op_db\n"
               "kept, failed = trace_op_db(lambda q: True)\n"
               "sys.stdout.write(json.dumps({q: [[s.origin, s.args] for s in v] for q, v in sorted(kept.items())}, "
               "sort_keys=True))\n")


def _bounds(node, out):
    if isinstance(node, dict):
        if node.get("dist") in ("uniform", "randint"):
            out.append(max(abs(float(node["low"])), abs(float(node["high"]))))
        for v in node.values():
            _bounds(v, out)
    elif isinstance(node, list):
        for v in node:
            _bounds(v, out)
    return out


def test_opinfo_tracing_is_identical_across_processes_and_reads_no_uninitialized_memory():
    import os
    import subprocess
    import sys

    runs = [subprocess.run([sys.executable, "-c", _TRACE_DUMP], capture_output=True, text=True, timeout=600, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(h)}).stdout for h in (1, 2)]
    assert runs[0] == runs[1]
    traced = json.loads(runs[0])
    # aten/fill_.Scalar's self comes from torch.empty in OpInfo; its spec once read garbage bounds like 4e33.
    assert all(b <= 1e10 for b in _bounds(traced, []))
    assert max(_bounds(traced["fill_.Scalar"], [])) < 1e4
