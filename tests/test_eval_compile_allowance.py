"""Waiting while a worker compiles Triton kernels does not count against a call's limit (up to an allowance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_helpers import EXAMPLE_SOLUTIONS, EXAMPLE_TASKS

import kernelgenbench.evaluator.supervisor as supervisor
from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator import runner
from kernelgenbench.evaluator.solutions import Candidate
from kernelgenbench.evaluator.status import Status

# The example's add, whose first call spends 4 s "compiling": a new entry in its Triton cache every 0.4 s,
# as an autotuner's configurations land there one by one.
SLOW_FIRST_CALL = (EXAMPLE_SOLUTIONS / "aten__add.Tensor.py").read_text() + '''

import os as _os
import time as _time

_add = add_Tensor
_first = [True]


def add_Tensor(self, other, *, alpha=1):
    if _first.pop() if _first else False:
        for i in range(10):
            _os.makedirs(_os.path.join(_os.environ["TRITON_CACHE_DIR"], f"entry{i}"), exist_ok=True)
            _time.sleep(0.4)
    return _add(self, other, alpha=alpha)
'''

SLEEPS = SLOW_FIRST_CALL.replace("_os.makedirs(", "(lambda *a, **k: None)(")


def _run(tmp_path: Path, code: str, allowance: float) -> runner.CandidateResult:
    rows = [json.loads(line) for line in EXAMPLE_TASKS.read_text().splitlines()]
    task = Task.from_dict(next(r for r in rows if r["id"] == "aten/add.Tensor"))
    cand = Candidate(task_id=task.id, code=code, candidate_id="slow", origin="slow.py")
    config = runner.EvalConfig(device="cpu", rounds=1, call_timeout_s=2.0, compile_allowance_s=allowance)
    [result] = runner.run([task], [cand], config=config, out=tmp_path / "r.jsonl")
    return result


@pytest.mark.parametrize("allowance, expected", [(60.0, Status.PASSED), (0.0, Status.TIMEOUT)])
def test_compiling_is_credited_up_to_the_allowance(tmp_path, monkeypatch, allowance, expected):
    monkeypatch.setattr(supervisor, "COMPILE_POLL_S", 0.5)
    result = _run(tmp_path, SLOW_FIRST_CALL, allowance)
    assert result.status is expected, result.evidence


def test_waiting_without_compiling_still_times_out(tmp_path, monkeypatch):
    monkeypatch.setattr(supervisor, "COMPILE_POLL_S", 0.5)
    result = _run(tmp_path, SLEEPS, 60.0)
    assert result.status is Status.TIMEOUT
    assert "no reply within 2 s; worker killed" in result.evidence
