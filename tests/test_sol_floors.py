"""Speed-of-light byte counts: what each op must read and write, and floors over read/write ceilings."""

from __future__ import annotations

import pytest
import torch
from torchgen.model import FunctionSchema

from kernelgenbench.evaluator.ceilings import Ceilings
from kernelgenbench.evaluator.cost import workload_cost, written_outputs
from kernelgenbench.evaluator.sol import check_floor, floor_us
from kernelgenbench.extractors.aten import policies, signature

N = 1 << 20  # elements; float32: 4 MiB per tensor
MB = 4 * N


def _cost(schema: str, category: str, args: dict, call) -> dict:
    """Evaluate the record cost the extractor would write for `schema` on real CPU tensors."""
    fs = FunctionSchema.parse(schema)
    name = str(fs.name.name)
    params = signature.params(fs)
    cost = policies.cost(name, category, params, fs.name.overload_name)
    returned = call(**args)
    mutable = {p["name"] for p in params if p["mutable"]}
    return workload_cost(cost, args, written_outputs(returned, args, mutable))


def _x():
    return torch.randn(N)


def test_out_variant_reads_its_inputs_and_only_writes_out():
    c = _cost("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", "pointwise",
              {"self": _x(), "other": _x(), "out": torch.empty(N)}, lambda **a: torch.add(a["self"], a["other"],
                                                                                       out=a["out"]))
    assert (c["reads"], c["writes"], c["bytes"]) == (2 * MB, MB, 3 * MB)


def test_copy_destination_is_written_not_read():
    c = _cost("copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", "copy",
              {"self": torch.empty(N), "src": _x()}, lambda **a: a["self"].copy_(a["src"]))
    assert (c["reads"], c["writes"]) == (MB, MB)


@pytest.mark.parametrize("schema,call", [
    ("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", lambda **a: a["self"].fill_(1.5)),
    ("zero_(Tensor(a!) self) -> Tensor(a!)", lambda **a: a["self"].zero_()),
    ("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> Tensor(a!)",
     lambda **a: a["self"].exponential_()),
])
def test_fills_only_write(schema, call):
    c = _cost(schema, "creation", {"self": torch.empty(N)}, call)
    assert (c["reads"], c["writes"]) == (0, MB)


def test_like_constructors_read_nothing():
    c = _cost("ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
              "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor", "creation",
              {"self": _x()}, lambda **a: torch.ones_like(a["self"]))
    assert (c["reads"], c["writes"]) == (0, MB)


def test_bernoulli_reads_probabilities_only_in_its_default_overload():
    p = torch.rand(N)
    c = _cost("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor", "random", {"self": p},
              lambda **a: torch.bernoulli(a["self"]))
    assert (c["reads"], c["writes"]) == (MB, MB)
    c = _cost("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)",
              "random", {"self": torch.empty(N)}, lambda **a: a["self"].bernoulli_(0.5))
    assert (c["reads"], c["writes"]) == (0, MB)


def test_index_put_touches_the_indexed_rows_not_the_whole_tensor():
    rows, cols, k = 4096, 256, 512
    self_, values = torch.randn(rows, cols), torch.randn(k, cols)
    idx = torch.randperm(rows)[:k]
    c = _cost("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
              "indexing", {"self": self_, "indices": [idx], "values": values},
              lambda **a: a["self"].index_put_(a["indices"], a["values"]))
    assert c["reads"] == idx.nbytes + values.nbytes
    assert c["writes"] == values.nbytes < self_.nbytes


def test_a_plain_in_place_op_reads_and_writes_self():
    c = _cost("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "pointwise",
              {"self": _x(), "other": _x()}, lambda **a: a["self"].add_(a["other"]))
    assert (c["reads"], c["writes"]) == (2 * MB, MB)


_CEIL = Ceilings("dev", copy_bytes_per_s=4.0e12, matrix_flops_per_s={"bfloat16": 8e14}, vector_flops_per_s=5e13,
                 torch_version="x", read_bytes_per_s=4.4e12, write_bytes_per_s=4.2e12)


def test_floor_uses_read_and_write_ceilings():
    us, bound = floor_us({"flops": 0, "bytes": 4.2e9, "reads": 0, "writes": 4.2e9, "unit": "vector"}, _CEIL, "float32")
    assert bound == "memory" and us == pytest.approx(1000.0)  # a fill: the write ceiling, not the copy one
    us, _ = floor_us({"flops": 0, "bytes": 4.4e9, "reads": 4.4e9, "writes": 0, "unit": "vector"}, _CEIL, "float32")
    assert us == pytest.approx(1000.0)
    # a copy of n bytes can never be under its floor when timed at the measured copy rate
    n = 1e9
    us, _ = floor_us({"flops": 0, "bytes": 2 * n, "reads": n, "writes": n, "unit": "vector"}, _CEIL, "float32")
    assert us <= 2 * n / _CEIL.copy_bytes_per_s * 1e6
    # no read/write split (an older record): all bytes at the copy ceiling, as before
    us, _ = floor_us({"flops": 0, "bytes": 4e9, "unit": "vector"}, _CEIL, "float32")
    assert us == pytest.approx(1000.0)


def test_unmeasured_read_and_write_ceilings_fall_back_to_copy():
    old = Ceilings("dev", copy_bytes_per_s=4e12, matrix_flops_per_s={}, vector_flops_per_s=1e12, torch_version="x")
    assert old.memory_floor_s(2e12, 2e12) == pytest.approx(1.0)


def test_a_fill_at_the_write_ceiling_is_not_below_its_floor():
    # The case: a 16M-element float32 zero_ took 15.2 us against a copy-ceiling floor of 15.7 us.
    nbytes = 16 * 2**20 * 4
    ceil = Ceilings("H200", copy_bytes_per_s=4.27e12, matrix_flops_per_s={}, vector_flops_per_s=5e13,
                    torch_version="x", read_bytes_per_s=4.6e12, write_bytes_per_s=nbytes / 15.0e-6)
    us, _ = floor_us({"flops": 0, "bytes": nbytes, "reads": 0, "writes": nbytes, "unit": "vector"}, ceil, "float32")
    fc = check_floor({"available": True, "time_us": 15.2}, {}, {"available": True, "floor_us": us, "bound": "memory"})
    assert not fc.timing.get("below_floor") and not fc.impossible


@pytest.mark.gpu
def test_native_fill_and_copy_are_not_below_their_floors_on_the_device():
    from kernelgenbench.evaluator.ceilings import device_ceilings
    from kernelgenbench.evaluator.timing import TimingConfig, time_callable

    dev = torch.device("cuda")
    ceil = device_ceilings(dev, refresh=True)
    assert ceil.read_bytes_per_s > 0 and ceil.write_bytes_per_s > 0
    # TF32 always; on a device with int8 and float8 tensor cores (Hopper) those rates beat bfloat16's
    rates = ceil.matrix_flops_per_s
    assert rates["tfloat32"] > rates["float32"]
    if torch.cuda.get_device_capability(dev) >= (9, 0):
        assert rates["int8"] > rates["bfloat16"] and rates["float8_e4m3fn"] > rates["bfloat16"]
    n = 16 << 20
    cfg = TimingConfig(reps=50)
    fill = time_callable(lambda x: x.zero_(), lambda i: ((torch.empty(n, device=dev),), {}), device=dev, config=cfg)
    copy = time_callable(lambda d, s: d.copy_(s), lambda i: ((torch.empty(n, device=dev), torch.randn(n, device=dev)), {}),
                         device=dev, config=cfg)
    assert fill.time_us >= ceil.memory_floor_s(0, 4 * n) * 1e6
    assert copy.time_us >= ceil.memory_floor_s(4 * n, 4 * n) * 1e6


def test_an_optional_tensor_left_out_reads_nothing():
    from kernelgenbench.evaluator.cost import CostError, evaluate_cost

    x = torch.zeros(4)
    assert evaluate_cost("nbytes(self) + nbytes(weight)", {"self": x}, None) == 16
    with pytest.raises(CostError, match="unknown name 'weight'"):
        evaluate_cost("self.nbytes + weight.nbytes", {"self": x}, None)


def test_scatter_reads_src_only_where_index_points():
    # the curated default workload: src is [4096, 4096] but index [4096, 1] uses one column of it
    rows, cols = 1024, 1024
    self_, src = torch.randn(rows, cols), torch.randn(rows, cols)
    index = torch.randint(0, cols, (rows, 1))
    schema = ("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor", "indexing")
    c = _cost(*schema, {"self": self_, "dim": 1, "index": index, "src": src, "reduce": "add"},
              lambda **a: torch.scatter(a["self"], a["dim"], a["index"], a["src"], reduce=a["reduce"]))
    assert c["reads"] == self_.nbytes + index.nbytes + rows * 4 and c["writes"] == self_.nbytes
    # without a reduction the overwritten elements of self need not be read
    c = _cost("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", "indexing",
              {"self": self_, "dim": 1, "index": index, "src": src},
              lambda **a: torch.scatter(a["self"], a["dim"], a["index"], a["src"]))
    assert c["reads"] == self_.nbytes - rows * 4 + index.nbytes + rows * 4


def test_selecting_ops_read_self_only_at_what_they_select():
    self_, index = torch.randn(1024, 1024), torch.randint(0, 1024, (1024, 1))
    c = _cost("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", "indexing",
              {"self": self_, "dim": 1, "index": index}, lambda **a: torch.gather(a["self"], 1, a["index"]))
    assert c["reads"] == index.nbytes + 1024 * 4 < self_.nbytes
    rows = index[:16].flatten()
    c = _cost("index_select(Tensor self, int dim, Tensor index) -> Tensor", "indexing",
              {"self": self_, "dim": 0, "index": rows}, lambda **a: torch.index_select(a["self"], 0, a["index"]))
    assert c["reads"] == rows.nbytes + 16 * 1024 * 4


def test_index_tensor_reads_the_indexed_rows():
    self_, idx = torch.randn(4096, 256), torch.randint(0, 4096, (64,))
    c = _cost("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", "indexing", {"self": self_, "indices": [idx]},
              lambda **a: a["self"][a["indices"][0]])
    assert c["reads"] == idx.nbytes + 64 * 256 * 4


def test_rrelu_backward_reads_two_of_its_three_tensors():
    g, s, noise = _x(), _x(), _x()
    c = _cost("rrelu_with_noise_backward(Tensor grad_output, Tensor self, Tensor noise, Scalar lower, Scalar upper, "
              "bool training, bool self_is_result) -> Tensor", "activation",
              {"grad_output": g, "self": s, "noise": noise, "lower": 0.125, "upper": 1 / 3, "training": False,
               "self_is_result": False},
              lambda **a: torch.ops.aten.rrelu_with_noise_backward(*a.values()))
    assert (c["reads"], c["writes"]) == (2 * MB, MB)


def test_pad_backward_reads_the_gradient_not_self():
    g, s = torch.randn(8, 64, 132), torch.randn(8, 64, 128)
    c = _cost("reflection_pad1d_backward(Tensor grad_output, Tensor self, SymInt[2] padding) -> Tensor", "padding",
              {"grad_output": g, "self": s, "padding": [2, 2]},
              lambda **a: torch.ops.aten.reflection_pad1d_backward(a["grad_output"], a["self"], a["padding"]))
    assert (c["reads"], c["writes"]) == (g.nbytes, s.nbytes)


def test_a_matrix_floor_assumes_the_fastest_rate_its_operands_allow():
    from kernelgenbench.evaluator.sol import matrix_dtype, matrix_rate

    ceil = Ceilings("dev", copy_bytes_per_s=4e12, vector_flops_per_s=5e13, torch_version="x",
                    matrix_flops_per_s={"bfloat16": 8e14, "float32": 5e13, "tfloat32": 4e14, "int8": 1.6e15,
                                        "float8_e4m3fn": 1.5e15})
    # vLLM's cutlass_scaled_mm: int8 operands, float32 scales, a bfloat16 output
    args = {"out": torch.empty(64, 64, dtype=torch.bfloat16), "a": torch.zeros(64, 128, dtype=torch.int8),
            "b": torch.zeros(128, 64, dtype=torch.int8), "a_scales": torch.ones(64, 1), "b_scales": torch.ones(1, 64)}
    assert matrix_dtype(args, ceil) == "int8"
    args["a"], args["b"] = args["a"].to(torch.float8_e4m3fn), args["b"].to(torch.float8_e4m3fn)
    assert matrix_dtype(args, ceil) == "float8_e4m3fn"
    # float32 operands may run through TF32 (tl.dot's default): the floor takes that rate
    assert matrix_dtype({"self": torch.ones(4, 4), "mat2": torch.ones(4, 4)}, ceil) == "float32"
    assert matrix_rate(ceil, "float32") == 4e14
    # a dtype the device has no measured rate for: bfloat16's
    assert matrix_rate(ceil, "float8_e5m2") == 8e14
    cost = {"flops": 2 * 4096**3, "bytes": 0.0, "unit": "matrix"}
    assert floor_us(cost, ceil, "int8")[0] == pytest.approx(2 * 4096**3 / 1.6e15 * 1e6)
