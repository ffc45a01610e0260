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


def test_pass_at_k_columns_say_which_tasks_they_average():
    # 29 candidates for one task (10 pass), 2 each for two others (none pass): pass@3 covers one task only.
    rows = [_row("aten/mm", "passed" if i < 10 else "incorrect_numerics") for i in range(29)]
    rows += [_row(t, "runtime_error") for t in ("aten/add.Tensor", "vllm/rms_norm") for _ in range(2)]
    (g,) = summarize(rows)
    assert g.pass_at_tasks[1] == g.pass_at_tasks[2] == 3 and g.pass_at_tasks[3] == 1
    # over the same tasks, pass@k never falls as k grows
    assert g.pass_at[1] <= g.pass_at[2]
    text = format_table([g])
    assert "(1/3 tasks)" in text
    pass1_cell = f"{100 * g.pass_at[1]:.1f}%"
    assert pass1_cell in text and f"{pass1_cell} (" not in text  # a full column is not labelled


def test_candidate_for_a_task_outside_the_dataset_is_not_a_failed_task():
    rows = [_row("aten/mm", "passed"), _row("aten/not_there", "not_in_dataset")]
    (g,) = summarize(rows)
    assert g.tasks == 1 and g.solved == 1
    assert g.accuracy_by_source == {"aten": (1, 1)}
    assert g.statuses == {"passed": 1, "not_in_dataset": 1}
