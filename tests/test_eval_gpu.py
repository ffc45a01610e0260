"""On an accelerator: every example passes correctness and its performance workloads are timed."""

from __future__ import annotations

import pytest
from eval_helpers import EXAMPLE_SOLUTIONS, EXAMPLE_TASKS

import kernelgenbench
from kernelgenbench.evaluator.status import Status


@pytest.mark.gpu
def test_examples_pass_on_the_accelerator(tmp_path):
    results = kernelgenbench.evaluate(EXAMPLE_SOLUTIONS, dataset=EXAMPLE_TASKS, device="auto",
                                      out=tmp_path / "r.jsonl", timing={"reps": 10, "warmup": 2})
    assert len(results) >= 12
    assert {r.task_id: r.status for r in results if r.status is not Status.PASSED} == {}
    perf = [w for r in results for w in r.workloads if w.purpose == "performance"]
    assert perf and all(w.status is Status.PASSED for w in perf)
    assert all(w.timing and w.timing.get("available") for w in perf), [w.timing for w in perf if not (w.timing or {}).get("available")]
    assert results[0].platform["vendor"] != "cpu" and not results[0].platform["interpreter"]
