"""Extraction from the real cuBLAS headers (12.4, 12.9, 13.1), name classification, BLAS directions, CLI."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.cli.main import extract_app
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.errors import NetworkUnavailable, SourceNotFound
from kernelgenbench.extractors.cublas.classify import classify
from kernelgenbench.extractors.cublas.headers import HeaderSet, fetch, locate
from kernelgenbench.extractors.cublas.records import Extraction, curated_names, extract


@functools.cache
def _headers(version: str) -> HeaderSet:
    try:
        return fetch(version)  # from the cache; downloaded once (400-600 MB wheel, headers kept) if absent
    except NetworkUnavailable as exc:
        pytest.skip(f"cuBLAS {version} headers not cached and the package index is unreachable: {exc}")


@functools.cache
def _extract(version: str) -> Extraction:
    return extract(_headers(version))


@pytest.mark.network
@pytest.mark.parametrize(("version", "exact", "functions"), [("12.4", "12.4.5.8", 525), ("12.9", "12.9.3.13", 529),
                                                             ("13.1", "13.1.2.11", 539)])
def test_every_declared_function_gets_a_valid_record(version: str, exact: str, functions: int) -> None:
    ex = _extract(version)
    assert ex.header.version == exact
    assert len(ex.header.functions) == functions
    assert ex.failures == ()
    assert len(ex.records) == functions
    assert all(not record_errors(r) for r in ex.records)
    curated = [r for r in ex.records if r["details"]["cublas"]["curated"]]
    assert sorted(r["name"] for r in curated) == sorted(curated_names())
    for r in curated:
        assert r["reference"] and r["inputs"] and r["workload_status"]["state"] == "ok"
        assert r["benchmarks"] == ["ms"] and r["platforms"] == ["cuda"]
    rest = [r for r in ex.records if not r["details"]["cublas"]["curated"]]
    assert all(r["reference"] is None and r["workload_status"]["state"] == "none" and r["workload_status"]["reason"]
               for r in rest)


@pytest.mark.network
def test_12x_needs_cublasapi_13x_does_not() -> None:
    guard = '#error "This file should not be included without defining CUBLASAPI"'
    v12, v13 = _headers("12.9").api_header.read_text(), _headers("13.1").api_header.read_text()
    assert guard in v12 and "CUBLASAPI cublasStatus_t" in v12
    assert guard not in v13 and "CUBLASAPI cublasStatus_t" not in v13
    # The __half routines sit behind __cplusplus in 12.x and are extracted all the same.
    names = {f.name for f in _extract("12.4").header.functions}
    assert {"cublasHgemm", "cublasHgemmBatched", "cublasHgemmStridedBatched"} <= names


@pytest.mark.network
def test_enums_resolved_with_values() -> None:
    h = _extract("13.1").header
    assert h.enum("cublasOperation_t").value_of("CUBLAS_OP_C") == 2
    assert h.enum("cublasFillMode_t").value_of("CUBLAS_FILL_MODE_UPPER") == 1
    assert h.enum("cublasDiagType_t").value_of("CUBLAS_DIAG_UNIT") == 1
    assert h.enum("cublasSideMode_t").value_of("CUBLAS_SIDE_RIGHT") == 1
    assert h.enum("cudaDataType_t").value_of("CUDA_R_16BF") == 14
    assert h.enum("cublasComputeType_t").value_of("CUBLAS_COMPUTE_32F") == 68
    assert h.enum("cublasGemmAlgo_t").value_of("CUBLAS_GEMM_DEFAULT") == -1


@pytest.mark.network
def test_record_of_a_curated_batched_routine() -> None:
    rec = next(r for r in _extract("12.4").records if r["name"] == "cublasDgemmBatched")
    d = rec["details"]["cublas"]
    assert (d["precision"], d["level"], d["variant"], d["family"]) == ("D", "3", ["Batched"], "gemm")
    by = {p["name"]: p for p in d["c_params"]}
    assert by["handle"]["passing"] == "handle"
    assert (by["Aarray"]["c_type"], by["Aarray"]["pointer_depth"], by["Aarray"]["direction"]) == \
        ("const double* const[]", 2, "in")
    assert (by["Carray"]["direction"], by["Carray"]["direction_source"], by["Carray"]["passing"]) == \
        ("inout", "blas", "device_tensor_list")
    assert by["alpha"]["passing"] == "host_scalar"
    assert d["enums"]["cublasOperation_t"]["candidate_names"]["CUBLAS_OP_T"] == "T"
    params = {p["name"]: p for p in rec["params"]}
    assert "handle" not in params
    assert (params["Carray"]["kind"], params["Carray"]["mutable"], params["alpha"]["kind"]) == \
        ("tensor_list", True, "float")
    assert rec["provenance"]["file"] == "cublas_api.h" and rec["provenance"]["line"] > 1
    assert rec["signature"].startswith("cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t")


@pytest.mark.network
def test_result_of_reductions_is_a_device_tensor_out() -> None:
    rec = next(r for r in _extract("12.4").records if r["name"] == "cublasZdotc_v2")
    result = next(p for p in rec["params"] if p["name"] == "result")
    assert (result["kind"], result["direction"], result["dtype"]) == ("tensor", "out", "complex128")
    assert "1-element device tensor" in rec["description"]


@pytest.mark.parametrize(("name", "precision", "family", "level", "variants"), [
    ("cublasSgemm_v2_64", "S", "gemm", "3", ("_v2", "_64")),
    ("cublasCgemm3mStridedBatched", "C", "gemm", "3", ("3m", "StridedBatched")),
    ("cublasGemmStridedBatchedEx_64", "mixed", "gemm", "3", ("StridedBatched", "Ex", "_64")),
    ("cublasCsyrkEx", "C", "syrk", "3", ("Ex",)),
    ("cublasIsamax_v2", "S", "amax", "1", ("_v2",)),
    ("cublasScnrm2_v2", "Sc", "nrm2", "1", ("_v2",)),
    ("cublasZdscal_v2", "Zd", "scal", "1", ("_v2",)),
    ("cublasZdotc_v2", "Z", "dotc", "1", ("_v2",)),
    ("cublasCsyr2k_v2", "C", "syr2k", "3", ("_v2",)),
    ("cublasHSHgemvBatched_64", "HSH", "gemv", "2", ("Batched", "_64")),
    ("cublasDtrsmBatched", "D", "trsm", "3", ("Batched",)),
    ("cublasSdgmm", "S", "dgmm", "extension", ()),
    ("cublasZgetrfBatched", "Z", "getrf", "extension", ("Batched",)),
    ("cublasSetStream_v2", "", "SetStream_v2", "helper", ("_v2",)),
])
def test_classify(name: str, precision: str, family: str, level: str, variants: tuple[str, ...]) -> None:
    c = classify(name)
    assert (c.precision, c.family, c.level, c.variants) == (precision, family, level, variants)


def test_locate_rejects_a_directory_without_the_header(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFound, match="no cublas_api.h here"):
        locate(tmp_path)


def test_fetch_rejects_versions_without_wheels(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFound, match="only 12.x and 13.x ship as wheels"):
        fetch("11.8", cache=tmp_path)
    with pytest.raises(SourceNotFound, match="is not a version"):
        fetch("latest", cache=tmp_path)


def test_cli_source_writes_records(tmp_path: Path) -> None:
    header = tmp_path / "cublas_api.h"
    header.write_text(
        "typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;\n"
        "typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 } cublasFillMode_t;\n"
        "typedef struct cublasContext* cublasHandle_t;\n"
        "cublasStatus_t cublasSsyr_v2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const float* alpha,\n"
        "                             const float* x, int incx, float* A, int lda);\n")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(extract_app, ["cublas", "--source", str(tmp_path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    (rec,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert rec["id"] == "cublas/cublasSsyr_v2" and rec["provenance"]["line"] == 4
    assert [(p["name"], p["direction"]) for p in rec["params"]] == [
        ("uplo", "in"), ("n", "in"), ("alpha", "in"), ("x", "in"), ("incx", "in"), ("A", "inout"), ("lda", "in")]
    assert rec["details"]["cublas"]["enums"]["cublasFillMode_t"]["values"] == {
        "CUBLAS_FILL_MODE_LOWER": 0, "CUBLAS_FILL_MODE_UPPER": 1}


def test_cli_broken_header_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "cublas_api.h").write_text("typedef int cublasStatus_t;\ncublasStatus_t cublasFoo(int n\n;\n")
    res = CliRunner().invoke(extract_app, ["cublas", "--source", str(tmp_path), "--out", str(tmp_path / "o")])
    assert res.exit_code != 0
    assert str(res.exception) == f"{tmp_path / 'cublas_api.h'}:3: cannot parse C: syntax error before ';'"
