"""The record schema accepts a complete record and rejects broken ones with the id and the first error."""

from __future__ import annotations

import pytest
from records import add_tensor_record

from kernelgenbench.dataset.record import Task, content_hash
from kernelgenbench.dataset.schema import record_errors, validate_record
from kernelgenbench.errors import RecordInvalid


def test_complete_record_is_valid_and_typed() -> None:
    rec = add_tensor_record()
    assert record_errors(rec) == []
    task = Task.from_dict(rec)
    assert task.entry_point == "add_Tensor"
    assert [w.id for w in task.correctness_workloads] == ["c0"]
    assert task.to_dict() == rec
    assert task.content_hash == content_hash(add_tensor_record())


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        (lambda r: r.pop("entry_point"), "'entry_point' is a required property"),
        (lambda r: r.update(semantics="fuzzy"), "at semantics"),
        (lambda r: r.update(id="aten/add"), "does not match source/name.overload"),
        (lambda r: r["workloads"][0].update(purpose="speed"), "at workloads/0/purpose"),
        (lambda r: r["workloads"][0]["args"].update(beta={"kind": "value", "value": 1}), "unknown parameters ['beta']"),
        (lambda r: r["workloads"].pop(), "make it 'partial'"),
        (lambda r: r["tolerance"]["float32"].update(atol=-1), "at tolerance/float32/atol"),
        (lambda r: r["details"].update(vllm={}), "at details"),
        (lambda r: r["details"].pop("aten"), "'aten' is a required property"),
        (lambda r: r["workloads"][1]["args"]["self"].update(dtype=3), "at workloads/1/args/self"),
    ],
)
def test_broken_record_is_rejected_with_its_id(breakage, expected: str) -> None:
    rec = add_tensor_record()
    breakage(rec)
    with pytest.raises(RecordInvalid) as info:
        validate_record(rec)
    assert str(info.value).startswith("record aten/add")
    assert expected in str(info.value)
