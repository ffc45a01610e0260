"""The typed record model against the JSON Schema (they cannot drift) and its round trip on every record."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
from pathlib import Path
from typing import Any

import dataset_fixtures
import pytest
import records as record_fixtures

from kernelgenbench.dataset import record as model
from kernelgenbench.dataset.record import Part, Task, canonical_json
from kernelgenbench.dataset.schema import task_schema

ROOT = Path(__file__).resolve().parents[1]


def _defs() -> dict[str, Any]:
    s = task_schema()
    cost = next(o for o in s["properties"]["cost"]["oneOf"] if o.get("type") == "object")
    return {
        "Task": s, "Code": s["$defs"]["code"], "Param": s["$defs"]["param"], "Return": s["$defs"]["return"],
        "Tolerance": s["$defs"]["tol"], "Workload": s["$defs"]["workload"],
        "WorkloadStatus": s["properties"]["workload_status"], "Cost": cost,
        "Provenance": s["$defs"]["provenance"], "CompareRule": s["$defs"]["compare_rule"],
        "Segments": s["$defs"]["compare_rule"]["properties"]["segments"],
    }


def _enum_sites() -> dict[type[enum.Enum], dict[str, Any]]:
    s, d = task_schema(), task_schema()["$defs"]
    cost = _defs()["Cost"]
    return {
        model.Semantics: s["properties"]["semantics"], model.Category: s["properties"]["category"],
        model.Platform: s["properties"]["platforms"]["items"], model.Benchmark: s["properties"]["benchmarks"]["items"],
        model.WorkloadState: s["properties"]["workload_status"]["properties"]["state"],
        model.Purpose: d["workload"]["properties"]["purpose"], model.Direction: d["param"]["properties"]["direction"],
        model.ParamKind: d["param"]["properties"]["kind"], model.ReturnKind: d["return"]["properties"]["kind"],
        model.CostUnit: cost["properties"]["unit"], model.CompareMode: d["compare_rule"]["properties"]["mode"],
        model.Validator: d["compare_rule"]["properties"]["validator"],
    }


def _fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if f.name != "spelled"]


@pytest.mark.parametrize("name", list(_defs()))
def test_every_schema_property_is_a_field_and_required_means_no_default(name: str) -> None:
    cls, sub = getattr(model, name), _defs()[name]
    fields = {f.name: f for f in _fields(cls)}
    assert set(fields) == set(sub["properties"]), name
    optional = set(sub["properties"]) - set(sub["required"])
    assert set(cls.OPTIONAL) == optional, name
    # A required key has no default (the builder must say it), except record_version, which is a const.
    with_default = {n for n, f in fields.items()
                    if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING}
    assert with_default - optional <= {"record_version"}, name
    # A key that is never null in the schema is dropped when None; a nullable one is written as null.
    for key in cls.NONE_IS_ABSENT:
        types = sub["properties"][key].get("type", "object")
        assert "null" not in (types if isinstance(types, list) else [types]), (name, key)


def test_every_enum_is_the_schemas_closed_set() -> None:
    for kind, site in _enum_sites().items():
        assert [m.value for m in kind] == site["enum"], kind.__name__
    # Every closed set the model types is in the table above, and every enum field names one of them.
    parts = [c for c in vars(model).values() if isinstance(c, type) and issubclass(c, Part) and c is not Part]
    used = {e for c in parts for e in c.ENUMS.values()}
    assert used == set(_enum_sites())


def test_enums_coerce_and_compare_as_strings() -> None:
    p = model.Param("x", "Tensor", "tensor", False, False, None, False, direction="out")
    assert p.direction is model.Direction.OUT and p.direction == "out" and p.kind is model.ParamKind.TENSOR
    assert json.loads(json.dumps(p.to_dict()))["direction"] == "out" and type(p.to_dict()["direction"]) is str
    with pytest.raises(ValueError, match="'sideways' is not a valid Direction"):
        model.Param("x", "Tensor", "tensor", False, False, None, False, direction="sideways")


def test_absent_and_default_keys_stay_apart() -> None:
    spelled = {"atol": 0, "rtol": 0, "max_mismatch": 0.0}
    assert model.Tolerance.from_dict(spelled).to_dict() == spelled
    assert model.Tolerance.from_dict({"atol": 0, "rtol": 0}).to_dict() == {"atol": 0, "rtol": 0}
    rule = {"target": "out", "mode": "unordered", "upstream": "t", "dim": None}
    assert model.CompareRule.from_dict(rule).to_dict() == rule
    without = {k: v for k, v in rule.items() if k != "dim"}
    assert model.CompareRule.from_dict(without).to_dict() == without


def _assert_round_trip(recs: list[dict[str, Any]]) -> None:
    assert recs
    for d in recs:
        back = Task.from_dict(d).to_dict()
        assert canonical_json(back) == canonical_json(d), d["id"]


def test_round_trip_examples_and_fixtures() -> None:
    examples = [json.loads(line) for line in (ROOT / "examples" / "tasks.jsonl").read_text().splitlines() if line]
    fixtures = [record_fixtures.add_tensor_record()] + [
        getattr(dataset_fixtures, n)() for n in dir(dataset_fixtures) if n.endswith("_record")]
    _assert_round_trip(examples + fixtures)


@functools.cache
def _cublas() -> list[dict[str, Any]]:
    from kernelgenbench.errors import NetworkUnavailable
    from kernelgenbench.extractors.cublas.headers import fetch
    from kernelgenbench.extractors.cublas.records import extract

    try:
        return list(extract(fetch("12.4")).records)
    except NetworkUnavailable as exc:
        pytest.skip(f"cuBLAS headers not cached and no package index: {exc}")


def test_round_trip_cublas_records() -> None:
    _assert_round_trip(_cublas())


def test_round_trip_vllm_records() -> None:
    from vllm_sources import sdist_tree

    from kernelgenbench.extractors.vllm.extract import extract
    from kernelgenbench.extractors.vllm.records import SourceInfo

    tree = sdist_tree("0.13.0")
    _assert_round_trip(list(extract(tree.root, SourceInfo(tree.version, tree.commit)).records))


def test_round_trip_aten_records() -> None:
    from kernelgenbench.extractors.aten import extract

    _assert_round_trip(extract(None, only_curated=True, opinfo=False).records)


def test_the_shipped_task_schema_is_the_one_the_registry_generates() -> None:
    from kernelgenbench.dataset.schema import with_sources
    from kernelgenbench.sources import sources

    shipped = json.loads((ROOT / "kernelgenbench" / "dataset" / "schema" / "task.schema.json").read_text())
    assert [s.name for s in sources()] == ["aten", "vllm", "cublas"]
    assert with_sources(shipped, sources()) == shipped
    assert task_schema() == shipped
