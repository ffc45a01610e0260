"""A call whose right answer takes no computing (an input as given, one fill value, nothing) needs no launch."""

from __future__ import annotations

import dataclasses

import torch
from evidence_helpers import call_report, example_task

from kernelgenbench.dataset.record import Semantics
from kernelgenbench.evaluator.checks import REGISTRY, judge_report
from kernelgenbench.evaluator.judge import judge_evidence
from kernelgenbench.evaluator.status import Status
from kernelgenbench.evaluator.workless import needs_work


def _add(x: torch.Tensor, y: torch.Tensor) -> tuple[dict, torch.Tensor]:
    return {"self": x, "other": y, "alpha": 1}, torch.add(x, y)


def test_random_inputs_need_work() -> None:
    args, out = _add(torch.randn(8, 4), torch.randn(8, 4))
    assert needs_work(example_task("aten/add.Tensor"), out, args, args)


def test_an_input_returned_as_given_needs_no_work() -> None:
    x = torch.randn(8, 4)
    args, out = _add(x, torch.zeros(8, 4))
    assert torch.equal(out, x)
    assert not needs_work(example_task("aten/add.Tensor"), out, args, args)


def test_same_values_other_dtype_or_shape_need_work() -> None:
    x = torch.randn(8, 4)
    args = {"self": x, "other": torch.zeros(8, 4), "alpha": 1}
    task = example_task("aten/add.Tensor")
    assert needs_work(task, x.double(), args, args)
    assert needs_work(task, x.reshape(4, 8).clone(), args, args)


def test_a_view_of_the_references_input_and_unspecified_values_need_no_work() -> None:
    # t, expand, narrow: the reference's result is a view of what it was given (FP hunt 18: ten view tasks failed
    # no_triton_launch); empty_strided's values are unspecified
    x = torch.randn(8, 4)
    args = {"self": x}
    task = example_task("aten/add.Tensor")
    assert not needs_work(task, x.t(), args, args)
    assert not needs_work(task, x[2:5], args, args)
    assert needs_work(task, x.t().contiguous(), args, args)
    empty = dataclasses.replace(task, category="creation", semantics=Semantics.UNINITIALIZED)
    assert not needs_work(empty, torch.empty(3, 4), {}, {})
    # an in-place op returns its argument: that argument's values are still compared, so it needs its work
    inplace = example_task("aten/add_.Tensor")
    pristine = {"self": x.clone(), "other": torch.ones(8, 4), "alpha": 1}
    after = {"self": x.add_(1), "other": pristine["other"], "alpha": 1}
    assert needs_work(inplace, x, after, pristine)


def test_an_in_place_op_that_changes_nothing_needs_no_work() -> None:
    task = example_task("aten/add_.Tensor")
    x = torch.randn(16)
    pristine = {"self": x.clone(), "other": torch.zeros(16), "alpha": 1}
    after = {"self": x, "other": pristine["other"], "alpha": 1}
    assert not needs_work(task, x, after, pristine)
    x.add_(1.5)
    assert needs_work(task, x, after, pristine)


def test_fill_values_are_zero_one_or_a_scalar_argument() -> None:
    task = example_task("aten/sum.dim_IntList")
    args = {"self": torch.zeros(4, 6), "dim": [1], "keepdim": False}
    assert not needs_work(task, torch.zeros(4), args, args)
    assert not needs_work(task, torch.ones(4), args, args)
    assert needs_work(task, torch.full((4,), 3.5), args, args)
    assert not needs_work(task, torch.full((4,), 3.5), {**args, "keepdim": 3.5}, {**args, "keepdim": 3.5})
    assert needs_work(task, torch.tensor([0.0, 1.0, 0.0, 0.0]), args, args)  # not one value
    assert needs_work(task, torch.full((4,), float("nan")), args, args)


def test_scalar_results_and_fill_or_copy_tasks_always_need_work() -> None:
    task = example_task("aten/add.Tensor")
    x = torch.randn(8)
    args, _ = _add(x, torch.zeros(8))
    assert needs_work(task, 0, args, args)
    for category in ("creation", "copy"):
        assert needs_work(dataclasses.replace(task, category=category), x, args, args)


def test_workless_skips_only_the_launch_check() -> None:
    task = example_task("aten/add.Tensor")
    report = call_report(launches={}, launch_ranges=0)
    assert judge_report(REGISTRY, task, report).status is Status.NO_TRITON_LAUNCH
    assert judge_evidence(task, report, workless=True).passed
    computed = dataclasses.replace(report, ops={"aten::add.Tensor": 1})
    assert judge_evidence(task, computed, workless=True).status is Status.TORCH_FALLBACK
