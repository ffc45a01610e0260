"""The dataset build over real extractor output (not fixtures): the curated ATen records of the installed torch."""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from vllm_sources import sdist_tarball

import kernelgenbench
from kernelgenbench.dataset.build import build_dataset
from kernelgenbench.dataset.record import canonical_json
from kernelgenbench.errors import BuildFailed, NetworkUnavailable
from kernelgenbench.evaluator.prompt import build_prompt


def _extract(args: list[str], out: Path) -> tuple[Path, dict[str, dict]]:
    # Through the public command, as a user runs it (the extractors' modules are theirs to reorganize).
    exe = Path(sys.executable).parent / "kgb-extract"
    proc = subprocess.run([str(exe), *args, "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return out, {r["id"]: r for r in records}


@pytest.fixture(scope="module")
def aten_records(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    # OpInfo tracing is the slow part of the extraction; default workloads suffice here.
    out = tmp_path_factory.mktemp("real") / "aten.jsonl"
    return _extract(["aten", "--only-curated", "--no-opinfo", "--no-progress"], out)


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


@pytest.fixture(scope="module")
def cublas_records(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    from kernelgenbench.extractors.cublas.headers import fetch

    try:
        fetch("12.4")  # cached after the first download
    except NetworkUnavailable as exc:
        pytest.skip(f"cuBLAS 12.4 header not cached and the package index is unreachable: {exc}")
    out = tmp_path_factory.mktemp("real-cublas") / "cublas.jsonl"
    return _extract(["cublas", "--version", "12.4", "--only-curated"], out)


@pytest.fixture(scope="module")
def vllm_records(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict]]:
    sdist = sdist_tarball("0.13.0")
    out = tmp_path_factory.mktemp("real-vllm") / "vllm.jsonl"
    return _extract(["vllm", "--source", str(sdist), "--no-progress"], out)


@pytest.mark.slow
def test_build_over_all_three_extractions(aten_records: tuple[Path, dict[str, dict]],
                                          vllm_records: tuple[Path, dict[str, dict]],
                                          cublas_records: tuple[Path, dict[str, dict]], tmp_path: Path) -> None:
    inputs = [aten_records, vllm_records, cublas_records]
    records = {rid: r for _, recs in inputs for rid, r in recs.items()}
    curated = {rid for rid, r in records.items() if "ms" in r["benchmarks"]}
    result = build_dataset([path for path, _ in inputs], tmp_path / "ds")
    rows = {f.name: f.rows for f in result.files}
    assert result.omitted == {}
    assert rows["cublas"] == 50 and rows["vllm"] >= 50  # a curated op may register more than one schema
    assert rows["ms"] == rows["aten"] + rows["vllm"] + rows["cublas"] == len(curated)

    tasks = kernelgenbench.load_tasks(tmp_path / "ds", config="ms")
    assert {t.id for t in tasks} == curated
    for t in tasks:
        assert canonical_json(t.to_dict()) == canonical_json(records[t.id])
        ast.parse(f"import torch\n{build_prompt(t).python_signature}\n    ...\n")
    by_id = {t.id: t for t in tasks}
    gemm = build_prompt(by_id["cublas/cublasSgemm_v2"])
    # cuBLAS passes enums as letters ('N', 'T'): the hint follows the workloads, not a guess
    assert gemm.python_signature.startswith("def cublasSgemm_v2(transa: str, transb: str, m: int, n: int, k: int, ")
    assert "cuBLAS in any form" in gemm.text
    rms = build_prompt(by_id["vllm/rms_norm"])
    assert "Importing vllm or calling its ops" in rms.text and rms.reference_code
