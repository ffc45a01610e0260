"""Summary: unbiased pass@k, accuracy per source, tokens per solved operator."""

from __future__ import annotations

import math

import pytest

from kernelgenbench.evaluator.summary import format_table, pass_at_k, summarize


def test_pass_at_k_matches_the_closed_form():
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - math.comb(3, 2) / math.comb(5, 2))
    assert pass_at_k(5, 0, 3) == 0.0
    assert pass_at_k(5, 4, 2) == 1.0
    with pytest.raises(ValueError, match="needs at least 6 samples"):
        pass_at_k(5, 1, 6)


def _row(tid, status, **kw):
    return {"kind": "task", "task_id": tid, "source": tid.split("/")[0], "status": status, **kw}


def test_summary_figures():
    rows = [_row("aten/mm", "passed", tokens=100), _row("aten/mm", "incorrect_numerics", tokens=50),
            _row("aten/add.Tensor", "timeout", tokens=30), _row("aten/add.Tensor", "timeout", tokens=20),
            _row("vllm/rms_norm", "passed", tokens=200), _row("vllm/rms_norm", "passed", tokens=100)]
    (g,) = summarize(rows)
    assert g.tasks == 3 and g.candidates == 6 and g.solved == 2
    assert g.accuracy_by_source == {"aten": (1, 2), "vllm": (1, 1)}
    assert g.pass_at[1] == pytest.approx((0.5 + 0 + 1) / 3)
    assert g.pass_at[2] == pytest.approx((1 + 0 + 1) / 3)
    assert g.tokens_per_solved == pytest.approx(500 / 2)
    assert g.statuses == {"passed": 3, "timeout": 2, "incorrect_numerics": 1}
    text = format_table([g])
    assert "1/2 (50%)" in text and "pass@2" in text and "250" in text


def test_groups_per_model():
    rows = [_row("aten/mm", "passed", model="a"), _row("aten/mm", "runtime_error", model="b")]
    labels = [g.label for g in summarize(rows)]
    assert labels == ["all", "a", "b"]
