"""cublas_api.h parsing on small inline headers: prototypes, enums, C++ guards, and errors naming file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelgenbench.errors import SourceParseError
from kernelgenbench.extractors.cublas.parse import (
    CParam,
    CType,
    enable_cplusplus_declarations,
    parse_header,
    parse_prototype,
)

# The shape of the real header: the CUBLASAPI guard of 12.x, real include names (served by the stand-ins),
# enums with implicit and aliased values, a pointer array, and __half routines behind __cplusplus.
FIXTURE = """\
#ifndef CUBLASAPI
#error "This file should not be included without defining CUBLASAPI"
#endif
#include <stdint.h>
#include "driver_types.h"
#include "cuComplex.h"
#include <cuda_fp16.h>
#include <library_types.h>
#if defined(__cplusplus)
extern "C" {
#endif
#define CUBLAS_VER_MAJOR 12
#define CUBLAS_VER_MINOR 9
#define CUBLAS_VER_PATCH 3
#define CUBLAS_VER_BUILD 13
typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1 } cublasStatus_t;
typedef enum {
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T,
  CUBLAS_OP_C,
  CUBLAS_OP_HERMITAN = CUBLAS_OP_C,
  CUBLAS_OP_CONJG = 1 << 1 | 1
} cublasOperation_t;
typedef struct cublasContext* cublasHandle_t;
CUBLASAPI cublasStatus_t CUBLASWINAPI cublasSaxpy_v2(cublasHandle_t handle, int n,
                                                     const float* alpha, /* host or device pointer */
                                                     const float* x, int incx, float* y, int incy);
CUBLASAPI cublasStatus_t CUBLASWINAPI cublasDgemmBatched_64(cublasHandle_t handle, cublasOperation_t transa,
    int64_t m, const double* const Aarray[], double* const Carray[], int64_t batchCount);
CUBLASAPI size_t CUBLASWINAPI cublasGetCudartVersion(void);
#if defined(__cplusplus)
CUBLASAPI cublasStatus_t CUBLASWINAPI cublasHgemm(cublasHandle_t handle, const __half* alpha, __half* C);
#endif
#if defined(__cplusplus)
}
static inline cublasStatus_t cublasHelper(cublasHandle_t handle) { bool b = true; return CUBLAS_STATUS_SUCCESS; }
#endif
"""


def _line_of(text: str, needle: str) -> int:
    return 1 + next(i for i, line in enumerate(text.split("\n")) if needle in line)


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "cublas_api.h"
    p.write_text(text)
    return p


def test_prototypes_enums_and_version(tmp_path: Path) -> None:
    h = parse_header(_write(tmp_path, FIXTURE))
    assert h.version == "12.9.3.13"
    assert [f.name for f in h.functions] == ["cublasSaxpy_v2", "cublasDgemmBatched_64", "cublasGetCudartVersion",
                                             "cublasHgemm"]
    saxpy = h.functions[0]
    assert saxpy.location.line == _line_of(FIXTURE, "cublasSaxpy_v2(")
    assert str(saxpy) == ("cublasStatus_t cublasSaxpy_v2(cublasHandle_t handle, int n, const float* alpha, "
                          "const float* x, int incx, float* y, int incy);")
    assert saxpy.params[2] == CParam("alpha", CType("float", True, (False,)))
    op = h.enum("cublasOperation_t")
    assert [(e.name, e.value) for e in op.enumerators] == [
        ("CUBLAS_OP_N", 0), ("CUBLAS_OP_T", 1), ("CUBLAS_OP_C", 2), ("CUBLAS_OP_HERMITAN", 2), ("CUBLAS_OP_CONJG", 3)]


def test_pointer_arrays_and_void_params(tmp_path: Path) -> None:
    h = parse_header(_write(tmp_path, FIXTURE))
    batched = h.functions[1]
    a, c = batched.params[3], batched.params[4]
    assert (str(a), a.pointer_depth, a.type.const, a.array) == ("const double* const Aarray[]", 2, True, True)
    assert (str(c), c.type.const) == ("double* const Carray[]", False)
    assert batched.params[2].type == CType("int64_t")
    assert str(h.functions[2]) == "size_t cublasGetCudartVersion(void);"


def test_prototypes_print_back_to_equal_objects(tmp_path: Path) -> None:
    for f in parse_header(_write(tmp_path, FIXTURE)).functions:
        assert parse_prototype(str(f)) == f


def test_cplusplus_guard_enables_declarations_only() -> None:
    out = enable_cplusplus_declarations(FIXTURE).split("\n")
    assert len(out) == len(FIXTURE.split("\n"))  # line numbers are kept
    # extern "C" opening and the closing/inline-wrapper block stay guarded; the __half declarations do not.
    assert [i for i, line in enumerate(out) if line == "#if defined(__cplusplus)"] == [8, 33]
    assert out[30] == "#if 1 /* kgb: declarations guarded by __cplusplus */"


def test_static_inline_wrappers_are_not_routines(tmp_path: Path) -> None:
    assert "cublasHelper" not in [f.name for f in parse_header(_write(tmp_path, FIXTURE)).functions]


def test_library_types_resolves_cuda_data_type(tmp_path: Path) -> None:
    lt = tmp_path / "library_types.h"
    lt.write_text("typedef enum cudaDataType_t { CUDA_R_16F = 2, CUDA_R_32F = 0, CUDA_R_16BF = 14 } cudaDataType;\n"
                  "typedef enum cudaDataType_t cudaDataType_t;\ntypedef int libraryPropertyType;\n")
    text = FIXTURE + "typedef cudaDataType cublasDataType_t;\n"
    h = parse_header(_write(tmp_path, text), library_types=lt)
    assert h.enum("cudaDataType_t").value_of("CUDA_R_16BF") == 14
    assert h.enum("cublasDataType_t").value_of("CUDA_R_16F") == 2


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    broken = FIXTURE.replace("int incx, float* y, int incy);", "int incx, float* y, int incy;")
    path = _write(tmp_path, broken)
    with pytest.raises(SourceParseError) as e:
        parse_header(path)
    line = _line_of(broken, "int incx, float* y, int incy;")
    assert str(e.value) == f"{path}:{line}: cannot parse C: syntax error before ';'"
    assert "\n" not in str(e.value)


def test_unknown_type_names_file_and_line(tmp_path: Path) -> None:
    text = FIXTURE + "cublasStatus_t cublasFoo(cublasHandle_t h, cublasMystery_t m);\n"
    path = _write(tmp_path, text)
    with pytest.raises(SourceParseError) as e:
        parse_header(path)
    assert str(e.value) == (f"{path}:{_line_of(text, 'cublasFoo')}: cannot parse C: Invalid declaration near 'cublasMystery_t' "
                            "(an undeclared type name?)")


def test_preprocessor_error_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "#include \"no_such_header.h\"\n")
    with pytest.raises(SourceParseError) as e:
        parse_header(path)
    assert str(e.value) == f"{path}:1: no_such_header.h: No such file or directory"
