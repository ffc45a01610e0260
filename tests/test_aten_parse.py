"""Parsing native_functions.yaml: malformed entries are reported with file:line and the rest extracted."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from kernelgenbench.cli import main as cli_main
from kernelgenbench.errors import SourceNotFound, SourceParseError
from kernelgenbench.extractors.aten import extract
from kernelgenbench.extractors.aten.parse import group_relations, parse_native_functions
from kernelgenbench.extractors.aten.signature import params, returns

_TAGS = textwrap.dedent("""\
    - tag: pointwise
      desc: elementwise op
    - tag: core
      desc: core aten op
    """)

_NATIVE = textwrap.dedent("""\
    - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
      variants: function, method
      structured_delegate: add.out
      tags: [core, pointwise]

    - func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
      structured: True
      dispatch:
        CPU, CUDA: add_out

    - func: broken(Tensor self, Tensor other -> Tensor
      variants: function

    - func: neg(Tensor self) -> Tensor
      tags: [not_a_tag]

    - func: sin(Tensor self) -> Tensor
      variants: function, method
    """)


def _tree(root: Path, native: str = _NATIVE) -> Path:
    d = root / "aten" / "src" / "ATen" / "native"
    d.mkdir(parents=True)
    (d / "native_functions.yaml").write_text(native)
    (d / "tags.yaml").write_text(_TAGS)
    (root / "version.txt").write_text("2.99.0a0\n")
    return d / "native_functions.yaml"


def test_malformed_entries_are_reported_with_file_and_line(tmp_path):
    path = _tree(tmp_path)
    parsed = parse_native_functions(path, path.parent / "tags.yaml")
    assert [pf.qualified_name for pf in parsed.functions] == ["add.Tensor", "add.out", "sin"]
    assert [str(s) for s in parsed.skipped] == [
        f"{path}:11: Invalid function schema: broken(Tensor self, Tensor other -> Tensor "
        f"(in 'broken(Tensor self, Tensor other -> Tensor')",
        f"{path}:14: illegal tag not_a_tag (in 'neg(Tensor self) -> Tensor')",
    ]
    assert parsed.entries == 5
    assert [pf.line for pf in parsed.functions] == [1, 6, 17]


def test_extraction_of_a_source_tree_keeps_the_rest(tmp_path):
    _tree(tmp_path)
    result = extract(tmp_path, opinfo=False)
    assert [r["id"] for r in result.records] == ["aten/add.Tensor", "aten/add.out", "aten/sin"]
    assert len(result.skipped) == 2
    add = result.records[0]
    assert add["provenance"]["file"] == "aten/src/ATen/native/native_functions.yaml"
    assert (add["provenance"]["line"], add["provenance"]["version"]) == (1, "2.99.0a0")
    assert add["details"]["aten"]["out"] == "aten/add.out"
    assert result.records[1]["details"]["aten"]["dispatch"] == ["CPU", "CUDA"]
    assert result.summary().startswith("wrote 3 records from 5 entries; skipped 2 malformed entries;")


def test_cli_reports_skipped_entries_and_fails(tmp_path, monkeypatch, capsys):
    path = _tree(tmp_path / "pt")
    out = tmp_path / "aten.jsonl"
    monkeypatch.setattr(sys, "argv", ["kgb", "extract", "aten", "--source", str(tmp_path / "pt"),
                                      "--out", str(out), "--no-opinfo"])
    with pytest.raises(SystemExit) as exc:
        cli_main.main()
    assert exc.value.code == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"skipped {path}:11: Invalid function schema: broken(")
    assert err[-1].startswith(f"{out}: wrote 3 records from 5 entries; skipped 2 malformed entries;")
    assert len(out.read_text().splitlines()) == 3


def test_cli_writes_json_lines_to_stdout(tmp_path, monkeypatch, capsys):
    import json

    _tree(tmp_path / "pt", _NATIVE.split("\n- func: broken")[0] + "\n")
    monkeypatch.setattr(sys, "argv", ["kgb", "extract", "aten", "--source", str(tmp_path / "pt"),
                                      "--out", "-", "--no-opinfo"])
    with pytest.raises(SystemExit) as exc:
        cli_main.main()
    assert exc.value.code == 0
    captured = capsys.readouterr()
    assert [json.loads(line)["id"] for line in captured.out.splitlines()] == ["aten/add.Tensor", "aten/add.out"]
    assert captured.err == ("stdout: wrote 2 records from 2 entries; skipped 0 malformed entries; 0 invalid records; "
                            "0 schemas differ from the registered ones; workloads: ok 2; 109 curated names have no overload "
                            "(_index_put_impl_, _local_scalar_dense, _softmax, _to_copy, acosh, ...)\n")


@pytest.mark.parametrize("make", [lambda p: p / "missing", lambda p: p])
def test_missing_source_is_one_line(tmp_path, monkeypatch, capsys, make):
    source = make(tmp_path)
    monkeypatch.setattr(sys, "argv", ["kgb", "extract", "aten", "--source", str(source), "--out", "-"])
    with pytest.raises(SystemExit) as exc:
        cli_main.main()
    assert exc.value.code == 2
    captured = capsys.readouterr()
    expected = (f"kgb: error: --source {source}: no such directory; pass the root of a PyTorch source tree"
                if not source.exists() else
                f"kgb: error: --source {source}: aten/src/ATen/native/native_functions.yaml not found; "
                "pass the root of a PyTorch source tree")
    assert captured.err == expected + "\n"
    assert captured.out == ""


def test_invalid_yaml_is_a_parse_error_with_line(tmp_path):
    path = _tree(tmp_path, "- func: a(Tensor self) -> Tensor\n  variants: [function\n")
    with pytest.raises(SourceParseError, match=rf"^{path}:\d+: not valid YAML"):
        extract(tmp_path, opinfo=False)


def test_missing_source_raises_source_not_found(tmp_path):
    with pytest.raises(SourceNotFound):
        extract(tmp_path / "nope")


def test_params_and_returns(tmp_path):
    path = _tree(tmp_path)
    parsed = parse_native_functions(path, path.parent / "tags.yaml")
    out = parsed.functions[1].func.func
    ps = params(out)
    assert [(p["name"], p["type"], p["kind"], p["mutable"], p["keyword_only"], p["default"], p["direction"])
            for p in ps] == [
        ("self", "Tensor", "tensor", False, False, None, "in"),
        ("other", "Tensor", "tensor", False, False, None, "in"),
        ("alpha", "Scalar", "scalar", False, True, "1", "in"),
        ("out", "Tensor(a!)", "tensor", True, True, None, "out"),
    ]
    assert ps[3]["alias"] == "a"
    assert returns(out) == [{"name": "", "type": "Tensor(a!)", "kind": "tensor", "alias": "a"}]
    rel = group_relations(parsed.functions)
    assert (rel["add.out"].functional, rel["add.out"].out, rel["sin"].out) == ("add.Tensor", "add.out", None)


def test_an_overload_that_cannot_be_modelled_is_counted_and_the_rest_written(tmp_path, monkeypatch):
    from kernelgenbench.extractors.aten import pipeline

    path = _tree(tmp_path)
    real = pipeline.base_record

    def base_record(pf, **kw):
        if pf.qualified_name == "add.out":
            raise ValueError("cannot model this overload")
        return real(pf, **kw)

    monkeypatch.setattr(pipeline, "base_record", base_record)
    result = extract(tmp_path, opinfo=False)
    assert [r["id"] for r in result.records] == ["aten/add.Tensor", "aten/sin"]
    assert result.invalid == (f"aten/add.out ({path}:6): ValueError: cannot model this overload",)
    assert "1 invalid records" in result.summary()
