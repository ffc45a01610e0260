"""Declared comparison rules (the record's `compare`): outputs whose order upstream leaves free."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from evidence_helpers import call_report
from records import add_tensor_record

from kernelgenbench.dataset.record import CompareRule, Segments, Task
from kernelgenbench.dataset.rows import record_to_row, row_to_record
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.evaluator.compare import (
    active_rule,
    compare_declared,
    compare_tied_indices,
    rule_values,
    segment_keys,
)
from kernelgenbench.evaluator.status import Status

SEG = CompareRule(target="sorted_token_ids", mode="unordered_within_segments", upstream="test",
                  segments=Segments(labels="experts_ids", repeat="block_size", limit="num_tokens_post_pad"))


def _aligned() -> dict:
    """A moe_align_block_size result, block 4: expert 2 (5 tokens, 2 blocks), expert 0 (1), expert 3 (3); 2 spare blocks."""
    pad = 99
    ids = [0, 3, 4, 7, 8, 1, pad, pad, 2, pad, pad, pad, 5, 6, 9, pad, pad, pad, pad, pad, pad, pad, pad, pad]
    return {"sorted_token_ids": torch.tensor(ids, dtype=torch.int32),
            "experts_ids": torch.tensor([2, 2, 0, 3, 0, 0], dtype=torch.int32),
            "num_tokens_post_pad": torch.tensor([16], dtype=torch.int32), "block_size": 4}


def _judge_seg(out: torch.Tensor, values: dict | None = None) -> Status:
    values = values or _aligned()
    v, _ = compare_declared("argument sorted_token_ids", values["sorted_token_ids"], out, SEG, values=values, inputs={},
                            tolerance={})
    return v.status


def test_order_within_one_experts_run_is_free_across_its_blocks():
    ref = _aligned()["sorted_token_ids"]
    out = ref.clone()
    out[:8] = ref[:8][torch.tensor([5, 7, 0, 2, 6, 4, 1, 3])]  # tokens and pads of expert 2, across both its blocks
    out[12:16] = ref[12:16].flip(0)
    assert not torch.equal(out, ref)
    assert _judge_seg(out) is Status.PASSED


def test_a_token_moved_to_another_experts_run_fails():
    out = _aligned()["sorted_token_ids"].clone()
    out[[0, 8]] = out[[8, 0]]  # token 0 (expert 2) and token 2 (expert 0) trade places
    assert _judge_seg(out) is Status.INCORRECT_NUMERICS


def test_a_wrong_or_missing_token_fails():
    out = _aligned()["sorted_token_ids"].clone()
    out[1] = 4  # token 3 lost, token 4 twice
    assert _judge_seg(out) is Status.INCORRECT_NUMERICS
    out = _aligned()["sorted_token_ids"].clone()
    out[6] = 11  # a pad slot holds an id that is no token
    assert _judge_seg(out) is Status.INCORRECT_NUMERICS


def test_padding_past_num_tokens_post_pad_is_compared_elementwise():
    vals = _aligned()
    vals["sorted_token_ids"][17] = 98  # the reference left something in an unused block; it must be kept in place
    out = vals["sorted_token_ids"].clone()
    out[[16, 17]] = out[[17, 16]]
    assert _judge_seg(out, vals) is Status.INCORRECT_NUMERICS
    assert _judge_seg(vals["sorted_token_ids"].clone(), vals) is Status.PASSED


def test_segments_are_per_row_when_limit_has_one_entry_per_row():
    # Two LoRA slots of 8 ids each, block 4: slot 0 has expert 1 over both blocks, slot 1 only 4 used ids.
    labels = torch.tensor([1, 1, 5, 5], dtype=torch.int32)
    keys = segment_keys((16,), labels, 4, torch.tensor([8, 4]))
    assert keys[:8].unique().numel() == 1  # slot 0: one segment over both blocks
    assert keys[8:12].unique().numel() == 1 and keys[12:].unique().numel() == 4  # slot 1: used block, then each alone
    assert not set(keys[:8].tolist()) & set(keys[8:].tolist())


def test_a_shape_that_does_not_fit_the_declaration_gets_no_freedom():
    keys = segment_keys((10,), torch.tensor([1, 1, 1]), 4, torch.tensor([5, 5, 5]))
    assert keys.unique().numel() == 10


def test_metadata_is_still_checked():
    out = _aligned()["sorted_token_ids"].to(torch.int64)
    assert _judge_seg(out) is Status.INCORRECT_DTYPE


def _tie_case():
    src = torch.tensor([[3.0, 1.0, 3.0, 2.0, float("nan")], [5.0, 5.0, 5.0, 0.0, 1.0]])
    ref = torch.tensor([[0, 2, 3], [0, 1, 2]])
    return src, ref


def test_tied_indices_may_be_swapped_but_must_point_at_equal_values():
    src, ref = _tie_case()
    assert compare_tied_indices("i", ref, torch.tensor([[2, 0, 3], [2, 0, 1]]), src, -1, distinct=True).passed
    v = compare_tied_indices("i", ref, torch.tensor([[2, 0, 1], [2, 0, 1]]), src, -1, distinct=True)
    assert v.status is Status.INCORRECT_NUMERICS and "other values" in v.evidence


def test_tied_indices_must_be_distinct_when_declared_and_in_range():
    src, ref = _tie_case()
    twice = torch.tensor([[0, 0, 3], [0, 1, 2]])
    assert compare_tied_indices("i", ref, twice, src, -1, distinct=True).status is Status.INCORRECT_NUMERICS
    assert compare_tied_indices("i", ref, twice, src, -1, distinct=False).passed
    for bad in (5, -1):
        out = ref.clone()
        out[0, 0] = bad
        assert compare_tied_indices("i", ref, out, src, -1, distinct=False).status is Status.INCORRECT_NUMERICS


def test_tied_indices_for_a_reduced_dim_and_for_nan():
    src = torch.tensor([[1.0, float("nan"), float("nan")], [2.0, 2.0, 0.0]])
    ref = torch.tensor([1, 0])  # argmax-like, keepdim=False along dim 1
    assert compare_tied_indices("i", ref, torch.tensor([2, 1]), src, 1, distinct=False).passed
    assert not compare_tied_indices("i", ref, torch.tensor([0, 1]), src, 1, distinct=False).passed
    assert compare_tied_indices("i", torch.tensor(3), torch.tensor(4), src, None, distinct=False).passed


def _sort_task(stable_param: bool) -> Task:
    rec = add_tensor_record()
    rec["returns"].append({"name": "indices", "type": "Tensor", "kind": "tensor", "alias": None})
    rec["compare"] = [{"target": "return[1]", "mode": "ties_allowed", "source": "self", "dim": "dim",
                       "distinct": True, "unless": "stable", "upstream": "torch.sort docs: stable=False"}]
    if not stable_param:
        del rec["compare"][0]["unless"]
    else:
        rec["params"].append({"name": "stable", "type": "bool?", "kind": "bool", "mutable": False, "alias": None,
                              "optional": True, "default": None, "keyword_only": True, "direction": "in", "dtype": None})
    rec["params"].append({"name": "dim", "type": "int", "kind": "int", "mutable": False, "alias": None,
                          "optional": False, "default": "-1", "keyword_only": False, "direction": "in", "dtype": None})
    return Task.from_dict(rec)


def test_rule_values_take_upstream_defaults_and_unless_voids_the_rule():
    task = _sort_task(stable_param=True)
    vals = rule_values(task, {"self": torch.zeros(2)}, [("return[0]", torch.zeros(2))])
    assert vals["dim"] == -1 and vals["stable"] is None and "return[0]" in vals
    assert active_rule(task, "return[1]", vals) is not None
    assert active_rule(task, "return[0]", vals) is None
    assert active_rule(task, "return[1]", {**vals, "stable": True}) is None
    # A single returned tensor flattens to the path 'return': a rule for 'return[0]' is its rule.
    one = dataclasses.replace(task, compare=(dataclasses.replace(task.compare[0], target="return[0]"),))
    assert active_rule(one, "return", vals) is one.compare[0]
    single = rule_values(task, {"self": torch.zeros(2)}, [("return", torch.ones(2))])
    assert torch.equal(single["return[0]"], torch.ones(2))


def test_sort_indices_with_ties_judged_by_values():
    task = _sort_task(stable_param=False)
    x = torch.tensor([[2.0, 1.0, 2.0, 1.0]])
    values, idx = torch.sort(x, dim=-1, stable=True)
    vals = rule_values(task, {"self": x}, [("return[0]", values), ("return[1]", idx)])
    rule = active_rule(task, "return[1]", vals)
    other = torch.tensor([[3, 1, 2, 0]])
    assert compare_declared("return[1]", idx, other, rule, values=vals, inputs={"self": x}, tolerance={})[0].passed
    wrong = torch.tensor([[1, 3, 2, 1]])
    assert not compare_declared("return[1]", idx, wrong, rule, values=vals, inputs={"self": x}, tolerance={})[0].passed


def test_unordered_along_a_dim_uses_the_tolerance():
    rule = CompareRule(target="return[0]", mode="unordered", upstream="t", dim=0)
    ref = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    tol = {"float32": __import__("kernelgenbench.dataset.record", fromlist=["Tolerance"]).Tolerance(1e-3, 0.0)}
    ok = ref[[2, 0, 1]] + 1e-4
    assert compare_declared("r", ref, ok, rule, values={}, inputs={}, tolerance=tol)[0].passed
    mixed = ref.clone()
    mixed[0, 0], mixed[0, 1] = 2.0, 1.0  # a swap inside a row: along dim 0 that changes the columns' multisets
    assert not compare_declared("r", ref, mixed, rule, values={}, inputs={}, tolerance=tol)[0].passed
    whole = CompareRule(target="return[0]", mode="unordered", upstream="t")
    assert compare_declared("r", ref, mixed, whole, values={}, inputs={}, tolerance=tol)[0].passed


def test_record_with_compare_round_trips_and_bad_rules_are_rejected():
    rec = add_tensor_record()
    rec["compare"] = [{"target": "return[0]", "mode": "unordered_within_segments", "upstream": "x",
                       "segments": {"labels": "other", "repeat": 4, "limit": "self"}}]
    task = Task.from_dict(rec)
    assert task.compare[0].segments == Segments(labels="other", repeat=4, limit="self")
    assert task.to_dict() == rec
    assert row_to_record(record_to_row(rec)) == rec
    plain = add_tensor_record()
    assert "compare" not in row_to_record(record_to_row(plain)) and Task.from_dict(plain).compare == ()
    for bad in ({"target": "return[0]", "mode": "ties_allowed", "upstream": "x", "dim": 0},  # no source
                {"target": "return[0]", "mode": "unordered_within_segments", "upstream": "x"},  # no segments
                {"target": "return[0]", "mode": "sorted", "upstream": "x"},
                {"target": "return[0]", "mode": "unordered"},  # no upstream
                {"target": "ret urn", "mode": "unordered", "upstream": "x"}):
        assert record_errors({**rec, "compare": [bad]}), bad


@pytest.mark.parametrize("declared", [True, False])
def test_judge_applies_the_rule_to_a_mutable_argument(declared):
    from kernelgenbench.evaluator.judge import judge_call

    rec = add_tensor_record()
    for name in ("sorted_token_ids", "experts_ids", "num_tokens_post_pad"):
        rec["params"].append({"name": name, "type": "Tensor!", "kind": "tensor", "mutable": True, "alias": None,
                              "optional": False, "default": None, "keyword_only": False, "direction": "inout",
                              "dtype": None})
    rec["params"].append({"name": "block_size", "type": "int", "kind": "int", "mutable": False, "alias": None,
                          "optional": False, "default": None, "keyword_only": False, "direction": "in", "dtype": None})
    rec["returns"] = []
    if declared:
        rec["compare"] = [{"target": "sorted_token_ids", "mode": "unordered_within_segments", "upstream": "x",
                           "segments": {"labels": "experts_ids", "repeat": "block_size", "limit": "num_tokens_post_pad"}}]
    task = Task.from_dict(rec)
    ref_args = {"self": torch.zeros(1), "other": torch.zeros(1), **_aligned()}
    cand_args = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in ref_args.items()}
    cand_args["sorted_token_ids"][:8] = cand_args["sorted_token_ids"][:8].flip(0)
    header = call_report()
    verdict, _ = judge_call(task, header, {"returns": [], "args": cand_args}, ref_return=None, ref_args=ref_args,
                            pristine=ref_args, device="cpu")
    assert verdict.passed is declared, verdict.evidence
    cand_args["experts_ids"][0] = 1  # the labels themselves are still compared exactly
    verdict, _ = judge_call(dataclasses.replace(task), header, {"returns": [], "args": cand_args}, ref_return=None,
                            ref_args=ref_args, pristine=ref_args, device="cpu")
    assert verdict.status is Status.INCORRECT_NUMERICS


def test_rules_must_name_what_the_record_has():
    rec = add_tensor_record()
    ok = {"target": "return[0]", "mode": "ties_allowed", "source": "self", "dim": 0, "upstream": "x"}
    assert record_errors({**rec, "compare": [ok]}) == []
    cases = [
        [ok, ok],  # two rules for one output
        [{**ok, "target": "return[1]"}],  # add has one return
        [{**ok, "target": "self"}],  # not mutable
        [{**ok, "source": "nope"}],
        [{**ok, "dim": "axis"}],
        [{**ok, "unless": "stable"}],
        [{"target": "return[0]", "mode": "unordered_within_segments", "upstream": "x",
          "segments": {"labels": "return[3]", "repeat": 2}}],
    ]
    for rules in cases:
        assert record_errors({**rec, "compare": rules}), rules


def test_scatter_writes_accepts_any_colliding_write_and_nothing_else():
    from kernelgenbench.evaluator.compare import scatter_writes

    base = torch.zeros(2, 4)
    index = torch.tensor([[1, 1, 3], [0, 2, 2]])
    src = torch.tensor([[1.0, 2.0, 3.0, 9.0], [4.0, 5.0, 6.0, 9.0]])
    inputs, values = {"self": base, "index": index, "src": src}, {"dim": 1}
    ref = base.scatter(1, index, src[:, :3])
    for first, second in ((1.0, 5.0), (2.0, 6.0), (1.0, 6.0)):  # either write may win at [0, 1] and at [1, 2]
        out = ref.clone()
        out[0, 1], out[1, 2] = first, second
        assert scatter_writes("r", out, values, inputs).passed
    out = ref.clone()
    out[0, 1] = 3.0  # scattered, but to another element
    assert scatter_writes("r", out, values, inputs).status is Status.INCORRECT_NUMERICS
    out = ref.clone()
    out[0, 0] = 4.0  # nothing is scattered there: the input's value must stay
    v = scatter_writes("r", out, values, inputs)
    assert v.status is Status.INCORRECT_NUMERICS and "input's value" in v.evidence
    v = scatter_writes("r", torch.zeros(2, 4), values, inputs)
    assert v.status is Status.INCORRECT_NUMERICS and "none of the values" in v.evidence
