"""The dataset build over real extractor output (not fixtures): the curated ATen records of the installed torch."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

import pytest

import kernelgenbench
from kernelgenbench.dataset.build import build_dataset
from kernelgenbench.dataset.prompt import build_prompt
from kernelgenbench.dataset.record import canonical_json
from kernelgenbench.errors import BuildFailed


@pytest.fixture(scope="module")
def aten_records(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    from kernelgenbench.extractors.aten.extract import extract

    result = extract(only_curated=True, opinfo=False)  # OpInfo tracing is the slow part; defaults suffice here
    path = tmp_path_factory.mktemp("real") / "aten.jsonl"
    path.write_text("".join(canonical_json(r) + "\n" for r in result.records))
    return path, {r["id"]: r for r in result.records}


@pytest.mark.slow
def test_build_over_the_curated_aten_extraction(aten_records: tuple[Path, dict[str, dict]], tmp_path: Path) -> None:
    path, records = aten_records
    result = build_dataset([path], tmp_path / "ds")
    rows = {f.name: f.rows for f in result.files}
    curated = [r for r in records.values() if "ms" in r["benchmarks"]]
    assert rows["ms"] == rows["aten"] == len(curated) and len(curated) >= 110  # every overload of the 110 ops
    assert rows["mc"] == sum(1 for r in records.values() if "mc" in r["benchmarks"])
    assert rows["aten-all"] == sum(1 for r in records.values() if r["workloads"])
    assert set(result.omitted) == {"vllm", "cublas"}

    tasks = kernelgenbench.load_tasks(tmp_path / "ds", config="ms")
    assert {t.id for t in tasks} == {r["id"] for r in curated}
    for t in tasks:
        assert canonical_json(t.to_dict()) == canonical_json(records[t.id])
        ast.parse(f"import torch\n{build_prompt(t).python_signature}\n    ...\n")

    build_dataset([path], tmp_path / "again")
    digest = lambda d: {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()  # noqa: E731
                        for p in sorted(d.rglob("*")) if p.is_file()}
    assert digest(tmp_path / "again") == digest(tmp_path / "ds")


@pytest.mark.slow
def test_a_broken_real_record_fails_the_build_with_its_id(aten_records: tuple[Path, dict[str, dict]],
                                                          tmp_path: Path) -> None:
    _, records = aten_records
    first = records[sorted(records)[0]]
    rest = [r for rid, r in sorted(records.items()) if rid != first["id"]]
    bad = tmp_path / "aten.jsonl"
    bad.write_text("".join(canonical_json(r) + "\n" for r in [dict(first, entry_point="not valid!"), *rest]))
    with pytest.raises(BuildFailed) as info:
        build_dataset([bad], tmp_path / "ds")
    assert info.value.problems == (
        f"{bad}:1: record {first['id']}: at entry_point: 'not valid!' does not match '^[A-Za-z_][A-Za-z0-9_]*$'",)
    assert not (tmp_path / "ds").exists()
