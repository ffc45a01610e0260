"""bench/compare_record_texts.py: records may differ only in their reference text, and not in what it computes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from records import add_tensor_record

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "compare_record_texts.py"


@pytest.fixture(scope="module")
def c():
    spec = importlib.util.spec_from_file_location("compare_record_texts", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _with_code(code: str) -> dict:
    r = add_tensor_record()
    r["reference"]["code"] = code
    return r


SAME = "import torch\n\n\ndef add_Tensor(self, other, *, alpha=1):\n    return self + alpha * other\n"
OTHER = "import torch\n\n\ndef add_Tensor(self, other, *, alpha=1):\n    return self + alpha * other + 0.5\n"


def test_a_rewritten_text_that_computes_the_same_passes(c):
    before = [add_tensor_record()]
    problems, runs = c.compare(before, [_with_code(SAME)], seed=0, all_workloads=False)
    assert problems == [] and runs == 1


def test_a_different_result_or_another_field_is_reported(c):
    before = [add_tensor_record()]
    problems, _ = c.compare(before, [_with_code(OTHER)], seed=0, all_workloads=False)
    assert problems == ["aten/add.Tensor/c0: the reference's outputs differ"]
    changed = add_tensor_record()
    changed["description"] += " "
    problems, _ = c.compare(before, [changed], seed=0, all_workloads=False)
    assert problems == ["aten/add.Tensor: a field other than reference.code/inputs.code differs"]


def test_bitwise_sameness_counts_nan_payloads_and_dtypes(c):
    import torch

    a = torch.tensor([1.0, float("nan")])
    assert c._same((a, [a]), (a.clone(), [a.clone()]))
    assert not c._same(a, a.double()) and not c._same(a, -a)
    assert not c._same(torch.tensor([0.0]), torch.tensor([-0.0]))  # equal as numbers, not as bits
