"""Host data wrapped in a tensor during the call (checks/host_data.py): the judge's thresholds, and what the
worker's dispatch recorder counts for each way of making a tensor from host values."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from evidence_helpers import call_report, example_task

from kernelgenbench.evaluator.checks import REGISTRY, judge_report
from kernelgenbench.evaluator.checks.host_data import FLOOR_ELEMS, judge
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.dispatch import DispatchRecorder
from kernelgenbench.sandbox.protocol import Sizes

ADD = example_task("aten/add.Tensor")


def _sized(out_numel: int, host_built: int):
    sizes = Sizes(returns=((out_numel, 4 * out_numel),), args={"self": (out_numel, 4 * out_numel)})
    return call_report(sizes=sizes, host_built=host_built)


def test_host_data_as_large_as_the_output_is_host_compute() -> None:
    verdict = judge_report(REGISTRY, ADD, _sized(1000, 1000))
    assert verdict.status is Status.HOST_COMPUTE
    assert "1000 elements of tensor data were made from host values" in verdict.evidence


@pytest.mark.parametrize(("out_numel", "host_built"), [
    (1000, 999),  # a table smaller than the output (pointer arrays, shape vectors)
    (1000, 0),
    (FLOOR_ELEMS - 1, FLOOR_ELEMS - 1),  # too small to tell
])
def test_small_host_tables_and_small_outputs_are_not_judged(out_numel: int, host_built: int) -> None:
    assert judge(ADD, _sized(out_numel, host_built)) is None


def test_an_argument_the_task_does_not_declare_mutable_is_not_an_output() -> None:
    # the input is large; the output (a scalar here) is not: a host-made tensor the size of the input is no answer
    sizes = Sizes(returns=((1, 4),), args={"self": (5000, 20000)})
    assert judge(ADD, call_report(sizes=sizes, host_built=5000)) is None


@pytest.mark.parametrize("make", [
    lambda x: torch.tensor(x.tolist()),
    lambda x: torch.as_tensor(np.asarray(x) + 1),
    lambda x: torch.from_numpy(np.ones(x.numel(), dtype=np.float32)),
    lambda x: x.new_tensor([0.0] * x.numel()),
], ids=["tensor(list)", "as_tensor(ndarray)", "from_numpy", "new_tensor"])
def test_the_recorder_counts_every_way_from_host_values_to_a_tensor(make) -> None:
    x = torch.randn(300)
    rec = DispatchRecorder()
    with rec:
        make(x)
        torch.tensor(3.0)  # a scalar: one element
    assert rec.host_built == 301


def test_host_values_inside_a_launch_are_not_the_candidates() -> None:
    rec = DispatchRecorder()
    with rec:
        rec.paused = 1  # what the launch counter does around a Triton launch (the interpreter's own copies)
        torch.tensor([1.0] * 500)
        rec.paused = 0
    assert rec.host_built == 0
