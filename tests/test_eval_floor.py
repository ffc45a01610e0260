"""A measured time under the speed-of-light floor: flagged between 0.5x and 1x, impossible below 0.5x
unless a baseline of the same workload is also under the floor (then the floor is what is wrong)."""

from __future__ import annotations

import pytest

from kernelgenbench.evaluator.sol import check_floor, mark_below_floor

SOL = {"available": True, "floor_us": 10.0, "bound": "memory"}


def _t(us: float) -> dict:
    return {"available": True, "time_us": us, "median_us": us * 2}


def test_time_above_the_floor_is_left_alone():
    c = check_floor(_t(12.0), {"reference": _t(15.0)}, SOL)
    assert not c.impossible and c.note == ""
    assert "below_floor" not in c.timing and "below_floor" not in c.baselines["reference"]


def test_time_just_under_the_floor_is_flagged_not_failed():
    c = check_floor(_t(8.0), {"reference": _t(15.0)}, SOL)
    assert c.timing["below_floor"] is True and c.timing["floor_ratio"] == pytest.approx(0.8)
    assert not c.impossible
    assert c.note == "measured 8 us is 0.80x the speed-of-light floor 10 us (memory-bound); left out of speedups"


def test_time_under_half_the_floor_is_impossible():
    c = check_floor(_t(1.0), {"reference": _t(15.0)}, SOL)
    assert c.impossible and c.timing["floor_ratio"] == pytest.approx(0.1)
    assert "no real kernel runs: the timing is forged or broken" in c.note


def test_a_baseline_under_the_floor_makes_the_floor_suspect():
    c = check_floor(_t(1.0), {"reference": _t(9.0), "native": {"available": False}}, SOL)
    assert not c.impossible  # the floor is contradicted by our own baseline: no verdict on it
    assert c.baselines["reference"]["below_floor"] is True and "below_floor" not in c.baselines["native"]
    assert "baseline(s) reference also timed under the floor" in c.note


def test_no_floor_or_no_timing_changes_nothing():
    assert check_floor(_t(1.0), None, {"available": False, "reason": "no cost model"}).note == ""
    assert check_floor({"available": False, "reason": "x"}, {}, SOL).timing == {"available": False, "reason": "x"}
    assert check_floor(None, None, SOL) == check_floor(None, None, None)
    assert mark_below_floor({"available": True, "median_us": 4.0}, 10.0)["floor_ratio"] == pytest.approx(0.4)
