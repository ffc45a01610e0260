"""CPU-checkable parts of GPU timing: fresh buffers, span segmentation, cost expressions, floors."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.evaluator.ceilings import Ceilings
from kernelgenbench.evaluator.cost import CostError, evaluate_cost, workload_cost
from kernelgenbench.evaluator.report import geomean
from kernelgenbench.evaluator.results import sol_fraction
from kernelgenbench.evaluator.sol import floor_us
from kernelgenbench.evaluator.timing import _spans, fresh_arg_sets, time_callable, trimmed_mean


def test_fresh_arg_sets_have_new_addresses_same_values_and_layout() -> None:
    base_t = torch.arange(24.0).reshape(4, 6)[:, 1:5]  # a non-contiguous view with an offset
    base = [((base_t, 3), {"out": torch.zeros(2)})]
    sets = fresh_arg_sets(base, 5, budget_bytes=1 << 20)
    ptrs = {s[0][0].data_ptr() for s in sets} | {base_t.data_ptr()}
    assert len(ptrs) == 6
    for (args, kw) in sets:
        assert torch.equal(args[0], base_t) and args[0].stride() == base_t.stride()
        assert args[0].storage_offset() == base_t.storage_offset() and args[1] == 3
        assert torch.equal(kw["out"], torch.zeros(2))


def test_fresh_arg_sets_keep_arguments_that_share_a_storage_sharing_one() -> None:
    kv = torch.zeros(2, 256)  # a joint K/V cache: 2 KiB, passed as two views
    base = [((kv[0], kv[1]), {})]
    sets = fresh_arg_sets(base, 100, budget_bytes=3 * 2048)
    assert len(sets) == 3  # the shared storage counts once against the budget
    for (k, v), _ in sets:
        assert k.untyped_storage().data_ptr() == v.untyped_storage().data_ptr() != kv.data_ptr()
        v.fill_(1.0)  # a write through one view is seen through the joint storage, as in the original
        assert k.untyped_storage().nbytes() == 2048 and float(k.sum()) == 0.0 and float(v.sum()) == 256.0


def test_fresh_arg_sets_respect_the_memory_budget() -> None:
    base = [((torch.zeros(1024),), {})]  # 4 KiB a set
    assert len(fresh_arg_sets(base, 100, budget_bytes=10 * 4096)) == 10


def test_trimmed_mean_drops_stray_repetitions_and_averages_two_modes() -> None:
    assert trimmed_mean([1.0] * 45 + [100.0] * 5) == 1.0  # five stray slow repetitions of 50 are dropped
    # Two modes in nearly equal shares: the median jumps to whichever holds one more repetition, the
    # trimmed mean moves by the share that changed.
    a, b = [49.5] * 26 + [51.0] * 24, [49.5] * 24 + [51.0] * 26
    assert abs(trimmed_mean(a) - trimmed_mean(b)) < 0.15
    assert trimmed_mean([3.0, 1.0, 2.0]) == 2.0  # too few to trim: the plain mean


def test_spans_split_at_the_flush_kernel_and_cover_side_streams() -> None:
    acts = [
        (0, 30, 7, "kgb_l2_flush"), (40, 50, 7, "cand_a"), (45, 70, 9, "cand_side"),
        (100, 130, 7, "kgb_l2_flush"), (140, 150, 7, "cand_a"), (150, 160, 7, "void FillFunctor"),
    ]
    busy, spans, streams, per_call = _spans(acts, reps=2)
    assert spans == [0.030, 0.020]  # 70-40 ns and 160-140 ns, in µs
    assert busy == [0.030, 0.020]  # overlapping streams counted once, back-to-back kernels summed
    assert streams == 2 and per_call == 2.0


def test_busy_time_leaves_out_the_gaps_between_a_calls_kernels() -> None:
    # Two kernels of one call with a launch gap between them (torch.sum's two passes): ncu sums their
    # durations; the span would count the gap.
    acts = [(0, 30, 7, "kgb_l2_flush"), (100, 110, 7, "pass_1"), (190, 200, 7, "pass_2"), (195, 205, 9, "side")]
    busy, spans, _, _ = _spans(acts, reps=1)
    assert spans == [0.105] and busy == [0.025]


def test_time_callable_on_cpu_says_unavailable() -> None:
    t = time_callable(lambda: None, lambda i: ((), {}), device="cpu")
    assert not t.available and "no accelerator" in t.reason


def test_cost_expressions_over_tensors_and_values() -> None:
    a, b = torch.zeros(64, 32), torch.zeros(32, 16)
    args = {"self": a, "mat2": b, "alpha": 2}
    out = torch.zeros(64, 16)
    assert evaluate_cost("2 * self.shape[0] * self.shape[1] * mat2.shape[1]", args, out) == 2 * 64 * 32 * 16
    assert evaluate_cost("in_bytes + out_bytes", args, out) == (64 * 32 + 32 * 16 + 64 * 16) * 4
    assert evaluate_cost("prod(self.shape) * alpha", args, out) == 64 * 32 * 2
    assert workload_cost({"flops": "out_numel", "bytes": "self.nbytes"}, args, [out]) == {
        "flops": 1024.0, "bytes": 8192.0, "unit": "vector"}


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("__import__('os')", "is not allowed"),
        ("self.data_ptr", "is not allowed"),
        ("beta * 2", "unknown name 'beta'"),
        ("2 *", "is not valid Python"),
    ],
)
def test_cost_expressions_reject_what_they_must(expr: str, message: str) -> None:
    with pytest.raises(CostError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate_cost(expr, {"self": torch.zeros(2)}, None)


def test_floor_is_the_larger_of_memory_and_compute_time() -> None:
    ceil = Ceilings("dev", copy_bytes_per_s=4e12, matrix_flops_per_s={"bfloat16": 8e14}, vector_flops_per_s=5e13,
                    torch_version="x")
    us, bound = floor_us({"flops": 2 * 8192**3, "bytes": 3 * 8192**2 * 2, "unit": "matrix"}, ceil, "bfloat16")
    assert bound == "compute" and us == pytest.approx(2 * 8192**3 / 8e14 * 1e6)
    us, bound = floor_us({"flops": 1e6, "bytes": 4e9, "unit": "vector"}, ceil, "float32")
    assert bound == "memory" and us == pytest.approx(1000.0)
    assert sol_fraction(500.0, 1000.0) == 0.5 and sol_fraction(None, 3.0) is None
    assert geomean([1.0, 4.0]) == pytest.approx(2.0)


def test_precision_policy_works_after_torch_froze_its_backend_flags():
    # Importing torch.testing (the ATen extractor's OpInfo) freezes the global flags; plain assignment to
    # cudnn.allow_tf32 then raises. Run in a fresh interpreter so the freeze is certain and contained.
    import subprocess
    import sys

    code = (
        "import torch\n"
        "from kernelgenbench.evaluator.precision import precision_policy\n"
        "torch.backends.disable_global_flags()\n"
        "torch.backends.cuda.matmul.allow_tf32 = True\n"
        "with precision_policy(allow_tf32=False) as p:\n"
        "    inside = (p['tf32'], torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32)\n"
        "print(inside, torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "(False, False, False) True True"


def test_warm_up_fills_its_device_time_within_a_cap():
    from kernelgenbench.evaluator.timing import MAX_TIMED_WARMUP_CALLS, TimingConfig, warmup_calls

    assert warmup_calls(TimingConfig(), per_call_ms=0.05) == 5 + 1 + 500  # 25 ms of 50 us calls
    assert warmup_calls(TimingConfig(), per_call_ms=100.0) == 5 + 1 + 1
    assert warmup_calls(TimingConfig(), per_call_ms=0.0) == 5 + 1 + MAX_TIMED_WARMUP_CALLS
    assert warmup_calls(TimingConfig(warmup_ms=0), per_call_ms=0.05) == 5 + 1


def test_timed_repetitions_are_capped_by_device_time_but_never_too_few():
    from kernelgenbench.evaluator.timing import TimingConfig, timed_reps

    assert timed_reps(TimingConfig(), per_call_ms=0.05) == 200  # a 50 us kernel: all 200 (10 ms)
    assert timed_reps(TimingConfig(), per_call_ms=33.0) == 30  # a 33 ms GEMM: 1 s of calls
    assert timed_reps(TimingConfig(), per_call_ms=5000.0) == 10  # never fewer than min_reps
    assert timed_reps(TimingConfig(reps=7), per_call_ms=5000.0) == 7  # nor more than asked
    assert timed_reps(TimingConfig(), per_call_ms=0.0) == 200


def test_written_arguments_count_as_outputs_once():
    from kernelgenbench.evaluator.cost import written_outputs

    x, y = torch.zeros(10), torch.zeros(10)
    # in place, nothing returned (cuBLAS axpy): y is read and written
    assert evaluate_cost("in_bytes + out_bytes", {"x": x, "y": y}, written_outputs(None, {"x": x, "y": y}, {"y"})) == 120
    # in place and returned (aten add_): self counts once as an output
    assert evaluate_cost("in_bytes + out_bytes", {"self": x, "other": y},
                         written_outputs(x, {"self": x, "other": y}, {"self"})) == 120
    # a fresh return and no writes
    assert written_outputs(torch.ones(3), {"x": x}, set())[0].numel() == 3
