"""On an accelerator: every example passes correctness and its performance workloads are timed."""

from __future__ import annotations

import dataclasses

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


@pytest.mark.gpu
def test_a_time_forged_under_the_floor_fails_and_honest_times_are_never_impossible(tmp_path, monkeypatch):
    """The worker's timing is what a hostile candidate could rewrite in its process; here its reply is
    rewritten on arrival to 1 ns, the same forged report, and the real runner judges it."""
    from kernelgenbench.evaluator import supervisor

    code = (EXAMPLE_SOLUTIONS / "aten__add.Tensor.py").read_text()
    kw = {"dataset": EXAMPLE_TASKS, "task_ids": ["aten/add.Tensor"], "device": "auto",
          "timing": {"reps": 10, "warmup": 2}}
    honest = kernelgenbench.evaluate({"aten/add.Tensor": code}, out=tmp_path / "h.jsonl", **kw)[0]
    assert honest.status is Status.PASSED
    for w in honest.workloads:
        if w.timing and w.timing.get("below_floor"):  # allowed (floors are not proven tight), never < 0.5x
            assert w.timing["floor_ratio"] >= 0.5 and "speed-of-light floor" in w.evidence
    real_request = supervisor.Worker.request

    def forged(self, msg, timeout, expect):
        reply = real_request(self, msg, timeout, expect)
        if msg.get("op") == "time" and reply.kind == "timing":
            timing = dataclasses.replace(reply.message.timing, time_us=1e-3, median_us=1e-3)
            return dataclasses.replace(reply, message=dataclasses.replace(reply.message, timing=timing))
        return reply

    monkeypatch.setattr(supervisor.Worker, "request", forged)
    res = kernelgenbench.evaluate({"aten/add.Tensor": code}, out=tmp_path / "f.jsonl", **kw)[0]
    assert res.status is Status.IMPOSSIBLE_TIMING, (res.status, res.evidence)
    perf = next(w for w in res.workloads if w.purpose == "performance")
    assert perf.timing["below_floor"] and perf.timing["floor_ratio"] < 0.5
    assert "the timing is forged or broken" in perf.evidence
