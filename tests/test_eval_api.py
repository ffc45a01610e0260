"""kernelgenbench.evaluate(): code strings in, typed results out (several candidates per task)."""

from __future__ import annotations

import json

from eval_helpers import EXAMPLE_SOLUTIONS, EXAMPLE_TASKS

import kernelgenbench
from kernelgenbench.evaluator.runner import CandidateResult
from kernelgenbench.evaluator.status import Status
from kernelgenbench.evaluator.summary import summarize


def test_evaluate_code_strings_returns_typed_results(tmp_path):
    records = [json.loads(line) for line in EXAMPLE_TASKS.read_text().splitlines()]
    add = next(r for r in records if r["id"] == "aten/add.Tensor")
    good = (EXAMPLE_SOLUTIONS / "aten__add.Tensor.py").read_text()
    broken = "def add_Tensor(self, other, *, alpha=1):\n    raise RuntimeError('boom')\n"
    out = tmp_path / "r.jsonl"
    results = kernelgenbench.evaluate({"aten/add.Tensor": [good, broken, good]}, tasks=[add], device="cpu",
                                      rounds=2, out=out)
    assert all(isinstance(r, CandidateResult) for r in results)
    assert [r.candidate_id for r in results] == ["aten/add.Tensor#0", "aten/add.Tensor#1", "aten/add.Tensor#2"]
    assert [r.status for r in results] == [Status.PASSED, Status.RUNTIME_ERROR, Status.PASSED]
    assert "RuntimeError: boom" in results[1].evidence
    wl = results[0].workloads
    assert [(w.workload_id, w.status, w.rounds) for w in wl] == [("default-correctness", Status.PASSED, 2),
                                                               ("default-performance", Status.SKIPPED, 0)]
    (g,) = summarize([r.to_row() for r in results])
    assert abs(g.pass_at[1] - 2 / 3) < 1e-12 and g.pass_at[3] == 1.0
    # the results file holds one row per workload and per candidate
    kinds = [json.loads(line)["kind"] for line in out.read_text().splitlines()]
    assert kinds.count("task") == 3 and kinds.count("workload") == 6


def _rms_norm_task(perturb: bool):
    """The rms_norm example task; with `perturb`, its input generator gives each draw other inputs (not by pid
    modulo a number: the worker is always pid 2 in its namespace, and the evaluator's pid matched it in CI)."""
    from dataclasses import replace

    from kernelgenbench.dataset.record import Task

    record = next(json.loads(line) for line in EXAMPLE_TASKS.read_text().splitlines()
                  if json.loads(line)["id"] == "vllm/rms_norm")
    task = Task.from_dict(record)
    task = replace(task, workloads=task.workloads[:2])
    if not perturb:
        return task
    inputs = task.inputs
    code = inputs.code + (
        "\n\ndef kgb_test_inputs(params, *, seed, device):\n"
        "    import os\n"
        f"    out = {inputs.function}(params, seed=seed, device=device)\n"
        "    out['input'].add_(1 + int.from_bytes(os.urandom(7), 'little') / 2**56)  # differs on every draw\n"
        "    return out\n")
    return replace(task, inputs=replace(inputs, code=code, function="kgb_test_inputs"))


def test_the_worker_draws_inputs_itself_and_they_are_sent_when_its_draw_differs():
    good = (EXAMPLE_SOLUTIONS / "vllm__rms_norm.py").read_text()
    [same] = kernelgenbench.evaluate({"vllm/rms_norm": good}, tasks=[_rms_norm_task(False)], device="cpu", rounds=2)
    [differ] = kernelgenbench.evaluate({"vllm/rms_norm": good}, tasks=[_rms_norm_task(True)], device="cpu", rounds=2)
    assert same.status is Status.PASSED and differ.status is Status.PASSED, (same.evidence, differ.evidence)
    assert "resend" not in same.phases_s  # the fingerprints matched: no inputs crossed
    assert differ.phases_s.get("resend", 0.0) > 0  # they did not: the inputs were sent, and judged right


def test_kernels_only_the_timed_calls_ran_are_reported_beside_the_checked_ones():
    """Timed calls run with no recorder (red team 21: a fallback only when timed); their kernels are set against
    the checked calls' in the row."""
    from kernelgenbench.evaluator.rounds import timed_only_kernels
    from kernelgenbench.sandbox.protocol import Timing

    timing = Timing(available=True, kernel_names=("_add_kernel", "sm90_xmma_gemm_f32f32"))
    assert timed_only_kernels(timing, [{"name": "_add_kernel"}]) == ["sm90_xmma_gemm_f32f32"]
    assert timed_only_kernels(timing, None) is None  # the checked calls' kernels were not recorded
    assert timed_only_kernels(Timing(available=True), [{"name": "_add_kernel"}]) is None
