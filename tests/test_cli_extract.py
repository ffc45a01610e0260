"""The helpers the `kgb extract <source>` commands share: --out check, record writing, progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.cli.extract_common import Progress, check_out, write_records
from kernelgenbench.cli.main import extract_app
from kernelgenbench.errors import KgbError


def test_every_extractor_refuses_an_out_in_a_missing_folder(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "x.jsonl"
    with pytest.raises(KgbError, match=r"folder .*missing does not exist"):
        check_out(str(out))
    for source in ("aten", "vllm", "cublas"):
        res = CliRunner().invoke(extract_app, [source, "--source", str(tmp_path), "--out", str(out)])
        assert isinstance(res.exception, KgbError) and "does not exist" in str(res.exception), source
        assert not out.parent.exists()


def test_records_are_written_as_canonical_json_lines(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    where = write_records([{"b": 1, "a": "é"}, {"id": 2}], str(out))
    assert where == str(out)
    assert out.read_bytes() == '{"a":"é","b":1}\n{"id":2}\n'.encode()
    assert [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()] == [{"a": "é", "b": 1}, {"id": 2}]


def test_progress_counts_per_stage_and_prints_other_stages(capsys: pytest.CaptureFixture[str]) -> None:
    p = Progress(True, bar_stage="records")
    p.update("registrations", 0, 10)
    assert "reading registrations ..." in capsys.readouterr().err and p.bar is None
    p.update("records", 3, 10)
    assert p.bar is not None and p.done == 3
    p.update("records", 7, 10)
    assert p.done == 7
    p.close()
    assert p.bar is None
    off = Progress(False)
    tick = off.start("parse", 5)
    tick()
    off.update("records", 1, 2)
    assert off.bar is None
