"""The run's base seed: fresh and random by default, recorded in every row, reused on resume; a candidate
that precomputes its answers from a public seed passes only when the run uses that seed."""

from __future__ import annotations

import json

import pytest
from eval_helpers import CORPUS, EXAMPLE_TASKS

from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.api import evaluate
from kernelgenbench.evaluator.runner import ResultsWriter, recorded_seed, resolve_seed


def test_no_seed_draws_a_fresh_one_each_run(tmp_path):
    drawn = {resolve_seed(None, tmp_path / "r.jsonl", resume=False) for _ in range(8)}
    assert len(drawn) == 8 and all(0 <= s < 2**31 for s in drawn)


def test_explicit_seed_is_kept_and_resume_reuses_the_recorded_one(tmp_path):
    out = tmp_path / "r.jsonl"
    assert resolve_seed(7, out, resume=False) == 7
    writer = ResultsWriter(out, seed=1234)
    writer.write({"kind": "task", "task_id": "aten/a", "candidate_id": "c"})
    assert json.loads(out.read_text())["seed"] == 1234
    assert resolve_seed(None, out, resume=True) == 1234
    assert resolve_seed(1234, out, resume=True) == 1234
    with pytest.raises(KgbError, match="differs from the seed 1234"):
        resolve_seed(5, out, resume=True)


def test_a_file_from_before_seeds_were_recorded_resumes_with_the_old_default(tmp_path):
    out = tmp_path / "old.jsonl"
    ResultsWriter(out).write({"kind": "task", "task_id": "aten/a", "candidate_id": "c"})
    assert "seed" not in json.loads(out.read_text())
    assert resolve_seed(None, out, resume=True) == 0


def test_mixed_seeds_cannot_be_resumed():
    assert recorded_seed([{"seed": 3}, {"seed": None}, {}]) == 3
    with pytest.raises(KgbError, match="several seeds"):
        recorded_seed([{"seed": 3}, {"seed": 4}])


def test_precomputing_from_seed_zero_fails_under_the_default_seed(tmp_path):
    code = (CORPUS / "precompute_seed0.py").read_text()
    kw = {"dataset": EXAMPLE_TASKS, "task_ids": ["aten/add.Tensor"], "device": "cpu", "rounds": 3}
    fixed = evaluate({"aten/add.Tensor": code}, seed=0, out=tmp_path / "fixed.jsonl", **kw)[0]
    assert fixed.status.value == "passed"  # the attack is real: with the public seed it passes
    runs = [evaluate({"aten/add.Tensor": code}, out=tmp_path / f"r{i}.jsonl", **kw)[0] for i in range(2)]
    assert [r.status.value for r in runs] == ["incorrect_numerics"] * 2
    assert runs[0].seed != runs[1].seed  # two runs without --seed draw different inputs
    for i, r in enumerate(runs):
        rows = [json.loads(x) for x in (tmp_path / f"r{i}.jsonl").read_text().splitlines()]
        assert {row["seed"] for row in rows} == {r.seed}  # every row says how to reproduce it
    round_seeds = [r.evidence.split("(seed ")[1].split(")")[0] for r in runs]
    assert round_seeds[0] != round_seeds[1]
    again = evaluate({"aten/add.Tensor": code}, seed=runs[0].seed, out=tmp_path / "again.jsonl", **kw)[0]
    assert (again.status, again.evidence) == (runs[0].status, runs[0].evidence)  # --seed reproduces a run
