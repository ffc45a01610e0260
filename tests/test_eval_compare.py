"""Pure comparison functions: tolerance, exact integers, non-finite values, all-zero, random, views."""

from __future__ import annotations

import torch
from evidence_helpers import PLAIN_CPU, call_report

from kernelgenbench.dataset.record import Tolerance
from kernelgenbench.evaluator.compare import (
    compare_output,
    compare_random,
    compare_values,
    flatten,
    ks_pvalue,
    tolerance_for,
    unchanged,
)
from kernelgenbench.evaluator.status import Status

TOL = {"float32": Tolerance(atol=1e-5, rtol=1e-5)}


def _det(ref, out, semantics="deterministic"):
    return compare_output("return", ref, out, semantics=semantics, tolerance=TOL)[0]


def test_within_tolerance_passes_and_reports_error():
    ref = torch.tensor([1.0, 2.0, -3.0])
    verdict, stats = compare_values("return", ref, ref + 1e-6, TOL["float32"])
    assert verdict.passed
    assert 0 < stats["max_abs_err"] < 2e-6


def test_outside_tolerance_names_first_element():
    ref = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = ref.clone()
    out[1, 0] = 3.1
    v = _det(ref, out)
    assert v.status is Status.INCORRECT_NUMERICS
    assert "1 of 4 elements outside atol=1e-05 rtol=1e-05" in v.evidence
    assert "first at [1, 0]: got 3.1, expected 3" in v.evidence


def test_max_mismatch_allows_a_share_of_elements():
    ref = torch.zeros(100) + 1
    out = ref.clone()
    out[:3] = 5
    assert not compare_values("r", ref, out, Tolerance(1e-5, 1e-5, max_mismatch=0.02))[0].passed
    assert compare_values("r", ref, out, Tolerance(1e-5, 1e-5, max_mismatch=0.03))[0].passed


def test_integers_and_bools_are_exact_unless_the_record_names_their_dtype():
    ref = torch.tensor([1, 2, 3])
    v = _det(ref, torch.tensor([1, 2, 4]))  # TOL names float32 only: its tolerance never reaches int64
    assert v.status is Status.INCORRECT_NUMERICS
    assert "1 of 3 elements differ (exact comparison for int64)" in v.evidence
    assert _det(torch.tensor([True, False]), torch.tensor([True, True])).status is Status.INCORRECT_NUMERICS
    # A record that names an integer dtype (vLLM's int8 quant tests accept +-1) gets that tolerance.
    q = torch.tensor([-128, -3, 0, 7, 127] * 20, dtype=torch.int8)
    off = q.clone()
    off[0] = -127
    assert compare_output("r", q, off, semantics="deterministic", tolerance={"int8": Tolerance(1, 0)})[0].passed
    share = {"int8": Tolerance(0, 0, max_mismatch=0.01)}
    assert compare_output("r", q, off, semantics="deterministic", tolerance=share)[0].passed
    off[1:3] = 5
    assert not compare_output("r", q, off, semantics="deterministic", tolerance=share)[0].passed
    assert not compare_output("r", q, off, semantics="deterministic", tolerance={"int8": Tolerance(1, 0)})[0].passed


def test_nan_where_reference_is_finite_fails_and_matching_nan_passes():
    ref = torch.tensor([1.0, float("nan"), 3.0])
    assert _det(ref, ref.clone()).passed
    out = torch.tensor([float("nan"), float("nan"), 3.0])
    v = _det(ref, out)
    assert v.status is Status.INCORRECT_NUMERICS and "NaN where the reference has none" in v.evidence
    assert _det(ref, torch.tensor([1.0, 2.0, 3.0])).status is Status.INCORRECT_NUMERICS  # a NaN went missing


def test_infinity_must_match_sign():
    ref = torch.tensor([1.0, float("inf")])
    assert _det(ref, ref.clone()).passed
    assert "infinity mismatch" in _det(ref, torch.tensor([1.0, float("-inf")])).evidence
    assert "infinity mismatch" in _det(torch.tensor([1.0, 2.0]), torch.tensor([1.0, float("inf")])).evidence


def test_all_zero_output_against_nonzero_reference_fails_even_within_tolerance():
    ref = torch.full((8,), 1e-7)  # within atol of zero
    v = compare_values("return", ref, torch.zeros(8), TOL["float32"])[0]
    assert v.status is Status.INCORRECT_NUMERICS
    assert v.evidence == "return: all-zero output against a non-zero reference"
    assert compare_values("return", torch.zeros(8), torch.zeros(8), TOL["float32"])[0].passed


def test_metadata_checks_in_order():
    ref = torch.zeros(2, 3)
    assert _det(ref, ref.double()).evidence == "return: dtype float64, expected float32"
    assert _det(ref, torch.zeros(6)).evidence == "return: shape [6], expected [2, 3]"

    class Sub(torch.Tensor):
        pass

    assert _det(ref, ref.as_subclass(Sub)).status is Status.INCORRECT_TYPE
    assert _det(ref, ref.numpy()).status is Status.INCORRECT_TYPE


def test_strides_checked_for_views_and_uninitialized_only():
    ref = torch.zeros(3, 4).t()
    out = torch.zeros(4, 3)
    assert _det(ref, out).passed
    assert _det(ref, out, "view").status is Status.INCORRECT_STRIDES
    assert _det(ref, out, "uninitialized").status is Status.INCORRECT_STRIDES
    # uninitialized ops: metadata only, values never compared
    assert _det(torch.zeros(4, 3), torch.full((4, 3), 7.0), "uninitialized").passed


def test_random_semantics_accepts_same_distribution_rejects_another():
    g = torch.Generator().manual_seed(0)
    ref = torch.rand(4000, generator=g)
    same = torch.rand(4000, generator=g)
    shifted = torch.rand(4000, generator=g) * 0.9
    assert compare_random("return", ref, same).passed
    v = compare_random("return", ref, shifted)
    assert v.status is Status.INCORRECT_NUMERICS and "two-sample KS" in v.evidence
    coin = (torch.rand(4000, generator=g) < 0.5).float()
    biased = (torch.rand(4000, generator=g) < 0.6).float()
    assert compare_random("return", coin, (torch.rand(4000, generator=g) < 0.5).float()).passed
    assert not compare_random("return", coin, biased).passed
    # the right share of ones in a fixed pattern (a red-team kernel: frac(i * golden ratio) < p) is no draw
    pattern = ((torch.arange(4000, dtype=torch.float64) * 0.6180339887) % 1.0 < 0.5).float()
    assert abs(float(pattern.mean()) - 0.5) < 0.01
    v = compare_random("return", coin, pattern)
    assert v.status is Status.INCORRECT_NUMERICS and "successive differences" in v.evidence
    alternating = torch.arange(4000).remainder(2).float()
    assert not compare_random("return", coin, alternating).passed
    # a random permutation's neighbours are independent of the reference's in the same way: it passes
    assert compare_random("return", torch.randperm(4000, generator=g).float(),
                          torch.randperm(4000, generator=g).float()).passed


def test_a_random_output_that_repeats_itself_or_follows_its_input_is_no_draw():
    """Red team 16's pool read in windows repeats with the pool's period (so does a kernel whose programs share
    one generator offset); red team 17's `x < p` follows the input. Both have the right marginal."""
    g = torch.Generator().manual_seed(1)
    n = 1 << 15
    x = torch.rand(n, generator=g)
    ref = (torch.rand(n, generator=g) < 0.5).float()
    honest = (torch.rand(n, generator=g) < 0.5).float()
    assert compare_random("return", ref, honest, inputs={"self": x}).passed
    pool = torch.rand(4096, generator=g)
    windows = (pool[(torch.arange(n) + 77) % 4096] < 0.5).float()
    v = compare_random("return", ref, windows, inputs={"self": x})
    assert v.status is Status.INCORRECT_NUMERICS and "4096 apart" in v.evidence
    v = compare_random("return", ref, (x < 0.5).float(), inputs={"self": x})
    assert v.status is Status.INCORRECT_NUMERICS and "follows the input 'self'" in v.evidence
    # where the op itself reads its input (bernoulli's p), the reference follows it as much: no verdict
    p = torch.rand(n, generator=g)
    assert compare_random("return", torch.bernoulli(p, generator=g), torch.bernoulli(p, generator=g),
                          inputs={"self": p}).passed
    # red team 20: a threshold on low mantissa bits has no rank correlation with the input, but follows its bits
    low = ((((x * 2**24).long() >> 4) & 4095).float() / 4096 < 0.5).float()
    v = compare_random("return", ref, low, inputs={"self": x})
    assert v.status is Status.INCORRECT_NUMERICS and "follows bit" in v.evidence
    # heavy tails (exponential draws) over many trials: no false verdict
    for _ in range(10):
        a, b = torch.empty(5000).exponential_(generator=g), torch.empty(5000).exponential_(generator=g)
        assert compare_random("return", a, b, inputs={"self": torch.rand(5000, generator=g)}).passed


def test_ks_false_failure_rate_is_about_alpha():
    # 300 same-distribution comparisons at alpha 0.01: expect ~3 failures; far more means a broken p-value.
    g = torch.Generator().manual_seed(1)
    fails = sum(ks_pvalue(torch.randn(500, generator=g), torch.randn(500, generator=g)) < 0.01 for _ in range(300))
    assert fails <= 10


def test_unchanged_detects_writes_and_ignores_nan_positions():
    a = torch.tensor([1.0, float("nan")])
    assert unchanged("argument x", a, a.clone()).passed
    b = a.clone()
    b[0] = 2
    v = unchanged("argument x", a, b)
    assert v.status is Status.UNDECLARED_MUTATION
    assert v.evidence == "argument x: 1 of 2 elements written, but the schema does not declare it mutable"


def test_flatten_paths_and_default_tolerance():
    t = torch.zeros(1)
    assert [p for p, _ in flatten((t, [t, t]), "return")] == ["return[0]", "return[1][0]", "return[1][1]"]
    assert tolerance_for(torch.bfloat16, {}).rtol == 1.6e-2
    assert tolerance_for(torch.float32, TOL) is TOL["float32"]


def test_a_view_op_must_return_a_view_of_its_input():
    # The judge sees the reference's outputs and arguments as they are on the device, so a reference output
    # that is a view of an argument is recognised as one, and a candidate's fresh copy is caught.
    import dataclasses
    import json

    from eval_helpers import EXAMPLE_TASKS

    from kernelgenbench.dataset.record import Task
    from kernelgenbench.evaluator.judge import judge_call

    row = next(json.loads(line) for line in EXAMPLE_TASKS.read_text().splitlines() if '"aten/add.Tensor"' in line)
    task = dataclasses.replace(Task.from_dict(row), semantics="view")
    x = torch.randn(3, 4)
    args = {"self": x, "other": torch.randn(3, 4)}
    ref = x.t()

    def verdict(out, alias):
        header = call_report(leaves=[dataclasses.replace(PLAIN_CPU, alias=alias)])
        cand = {"returns": [out], "args": {k: v.clone() for k, v in args.items()}}
        return judge_call(task, header, cand, ref_return=ref, ref_args=args, pristine=args, device="cpu")[0]

    assert verdict(x.clone().t(), None).status is Status.INCORRECT_ALIASING
    assert verdict(x.clone().t(), "self").passed


def test_other_devices_layouts_and_dtypes_get_a_verdict_never_an_exception():
    ref = torch.tensor([1.0, 2.0, 3.0])
    meta = torch.empty(3, device="meta")  # stands in for "another device" on a CPU-only machine
    tol = TOL["float32"]
    assert compare_values("return", ref, meta, tol)[0].status is Status.INCORRECT_DEVICE
    assert "meta device" in compare_values("return", ref, meta, tol)[0].evidence
    assert _det(ref, meta).status is Status.INCORRECT_DEVICE
    assert compare_random("return", torch.rand(100), torch.empty(100, device="meta")).status is Status.INCORRECT_DEVICE
    assert compare_values("return", meta, ref, tol)[0].status is Status.REFERENCE_ERROR
    sparse = ref.to_sparse()
    assert compare_values("return", ref, sparse, tol)[0].status is Status.INCORRECT_TYPE
    assert "sparse_coo" in _det(ref, sparse).evidence
    assert compare_values("return", ref, ref.double(), tol)[0].status is Status.INCORRECT_DTYPE
    assert compare_values("return", ref, ref[:2], tol)[0].status is Status.INCORRECT_SHAPE
    assert compare_values("return", ref, [1.0, 2.0, 3.0], tol)[0].status is Status.INCORRECT_TYPE
    assert unchanged("argument x", ref, meta).status is Status.UNDECLARED_MUTATION
    assert unchanged("argument x", ref, sparse).status is Status.UNDECLARED_MUTATION
    assert unchanged("argument x", ref, ref.clone()).passed


def test_a_lying_object_is_named_by_its_real_type():
    class Liar:
        __module__, __qualname__ = "torch", "Tensor"
        __class__ = torch.Tensor  # isinstance(Liar(), torch.Tensor) is True

        def __getattr__(self, name):
            raise AssertionError("the comparison must not touch the candidate's object")

    assert isinstance(Liar(), torch.Tensor)
    v = _det(torch.ones(2), Liar())
    assert v.status is Status.INCORRECT_TYPE
    assert v.evidence == "return: expected a plain torch.Tensor, got torch.Tensor (another type under that name)"
