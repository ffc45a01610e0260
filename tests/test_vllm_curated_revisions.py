"""How a curated vLLM entry declares its op's schema per release: revisions, renames, removal (no sources needed)."""

from __future__ import annotations

import dataclasses
import re

import pytest
import yaml

from kernelgenbench.datafiles import parse_yaml
from kernelgenbench.extractors.vllm.curated import (
    CuratedData,
    CuratedEntry,
    SchemaRevision,
    load_curated_data,
    parse_curated,
)
from kernelgenbench.extractors.vllm.extract import _outcome, resolve_entry
from kernelgenbench.extractors.vllm.records import ReferenceStatus
from kernelgenbench.extractors.vllm.schemas import canonical_schema

CHECKED = ("0.13.0", "0.33.0", "0.34.0")


def _op(**kw: object) -> CuratedEntry:
    base = dict(op="norm", schema="norm(Tensor! out, Tensor x, Tensor w) -> ()", module="m", function="norm",
                inputs="make_norm", category="normalization", semantics="deterministic", tolerance={}, cost=None,
                description="", test=None, grid_map={}, fixed={"eps": 1e-6}, correctness=(), performance=(),
                file="vllm_curated_x.yaml", line=2)
    base.update(kw)
    return CuratedEntry(**base)  # type: ignore[arg-type]


OPTIONAL_W = SchemaRevision(since="0.33.0", name=None, schema="norm(Tensor! out, Tensor x, Tensor? w) -> ()",
                            function="norm_v033", inputs=None, fixed={"weight": "vector"})
RENAMED = SchemaRevision(since="0.34.0", name="norm2", schema="norm2(Tensor! out, Tensor x) -> ()",
                         function="norm_v034", inputs="make_norm_v034", fixed={}, description="norm2: no weight")


def test_each_schema_with_the_checked_releases_that_have_it() -> None:
    e = _op(revisions=(OPTIONAL_W, RENAMED), description="norm")
    got = [(x.schema, x.function, x.inputs, dict(x.fixed), x.description, revs) for x, revs in e.schemas(CHECKED)]
    assert got == [
        (e.schema, "norm", "make_norm", {"eps": 1e-6}, "norm", ("0.13.0",)),
        (OPTIONAL_W.schema, "norm_v033", "make_norm", {"eps": 1e-6, "weight": "vector"}, "norm", ("0.33.0",)),
        (RENAMED.schema, "norm_v034", "make_norm_v034", {"eps": 1e-6}, "norm2: no weight", ("0.34.0",)),
    ]
    assert [revs for _, revs in _op(removed="0.33.0").schemas(CHECKED)] == [("0.13.0",)]


def test_the_revision_schema_is_matched_exactly() -> None:
    e = _op(revisions=(OPTIONAL_W,))
    for text, function, revs in ((e.schema, "norm", ("0.13.0",)), (OPTIONAL_W.schema, "norm_v033", ("0.33.0", "0.34.0"))):
        got, checked = resolve_entry(e, canonical_schema(text), CHECKED)
        assert (got.function, checked) == (function, revs)
    # another schema (a new argument nobody declared) is no match: the entry at its first schema, no releases
    got, checked = resolve_entry(e, canonical_schema("norm(Tensor! out, Tensor x, Tensor? w, int k=0) -> ()"), CHECKED)
    assert (got is e, checked) == (True, ())
    assert resolve_entry(e, None, CHECKED) == (e, ())
    # a wrapper's annotation cannot tell SymInt from int: both match there, and only there
    w = _op(schema="norm(Tensor x, SymInt n) -> Tensor")
    assert resolve_entry(w, canonical_schema("norm(Tensor x, int n) -> Tensor"), CHECKED, wrapper=True)[1] == CHECKED
    assert resolve_entry(w, canonical_schema("norm(Tensor x, int n) -> Tensor"), CHECKED)[1] == ()


def test_removed_is_reported_only_from_the_declared_release() -> None:
    gone = _op(removed="0.33.0")
    data = CuratedData({"norm": gone}, {"norm": ("norm",)}, (), CHECKED)
    assert [gone.removed_at(v) for v in ("0.13.0", "0.32.9", "0.33.0", "0.34.1.dev3+g1234", "main")] == [
        False, False, True, True, False]
    at_034 = _outcome("norm", ("norm",), data, {}, set(), "0.34.0")
    assert (at_034.state, at_034.detail) == ("removed", "dropped by vLLM: norm is in no checked release from 0.33.0 on")
    assert _outcome("norm", ("norm",), data, {}, set(), "0.20.0").state == "absent"  # not declared gone there
    kept = CuratedData({"norm": _op()}, {"norm": ("norm",)}, (), CHECKED)
    assert _outcome("norm", ("norm",), kept, {}, set(), "0.34.0").state == "absent"
    ok = _outcome("norm", ("norm",), kept, {"norm": (ReferenceStatus.OK, [])}, {"norm"}, "0.34.0")
    assert ok.state == "ok"


def test_a_renamed_op_is_found_under_its_later_name() -> None:
    data = CuratedData({"norm": _op(revisions=(RENAMED,))}, {"norm_paper": ("norm",)}, (), CHECKED)
    assert data.aliases == {"norm2": "norm"}
    assert data.entry_for("norm2").op == "norm" and data.entry_for("norm").op == "norm"
    assert data.entry_for("other") is None
    assert data.curated_name_of("norm2") == "norm_paper"
    shipped = load_curated_data()
    assert shipped.aliases == {"marlin_gemm": "gptq_marlin_gemm"}


def _raw(**kw: object) -> dict:
    raw = {"schema": "rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()",
           "module": "kernelgenbench.reference_impls.vllm_norm", "function": "rms_norm",
           "inputs": "make_rms_norm_inputs", "category": "normalization", "semantics": "deterministic",
           "tolerance": {}}
    raw.update(kw)
    return raw


@pytest.mark.parametrize(("revision", "message"), [
    ({"since": "0.33.0", "schema": "rms_norm(Tensor x) -> ()", "function": "rms_norm_v033", "extra": 1},
     "entry 'rms_norm': revision 0: unknown key 'extra'"),
    ({"since": "0.33.0", "schema": "rms_norm(Tensor x) -> ()"}, "entry 'rms_norm': revision 0: missing function"),
    ({"since": "0.33.0", "schema": "other(Tensor x) -> ()", "function": "rms_norm_v033"},
     "revision schema must start with 'rms_norm('"),
    ({"since": "0.33.0", "name": "rms2", "schema": "rms_norm(Tensor x) -> ()", "function": "rms_norm_v033"},
     "revision schema must start with 'rms2('"),
    ({"since": "0.33.0", "schema": "rms_norm(Tensor x) -> ()", "function": "no_such_function"},
     "defines no function 'no_such_function'"),
])
def test_revisions_are_read_strictly(revision: dict, message: str) -> None:
    text = yaml.safe_dump({"ops": {"rms_norm": _raw(revisions=[revision])}}, sort_keys=False)
    entries, problems = parse_curated(parse_yaml(text, "vllm_curated_core.yaml"))
    assert entries == {} and len(problems) == 1
    assert re.match(r"vllm_curated_core\.yaml:\d+: ", problems[0]) and message in problems[0], problems[0]


def test_shipped_revisions_name_functions_of_their_module() -> None:
    data = load_curated_data()
    assert data.problems == () and data.checked == CHECKED
    revised = {op for op, e in data.entries.items() if e.revisions}
    assert {"rms_norm", "gptq_marlin_gemm", "grouped_topk", "awq_marlin_moe_repack"} <= revised
    for e in data.entries.values():
        assert [r.since for r in e.revisions] == sorted({r.since for r in e.revisions}), e.op
        for r in e.revisions:
            assert r.since in CHECKED and canonical_schema(r.schema), e.op
    removed = {op: e.removed for op, e in data.entries.items() if e.removed}
    assert removed["marlin_int4_fp8_preprocess"] == "0.34.0" and "gptq_marlin_gemm" not in removed
    assert dataclasses.replace(data.entries["rms_norm"], revisions=()).schemas(CHECKED)[0][1] == CHECKED
