"""Write examples/tasks.jsonl: the task records the example solutions are evaluated against.

Every record comes from the real extractors: ATen (curated overloads, default workloads), vLLM 0.13.0
(`kgb-extract vllm --source VLLM_SRC`) and cuBLAS 12.4 (`kgb-extract cublas --only-curated`). Without a vLLM
source, records assembled here from the same upstream signatures and reference modules stand in. Every
record is validated against the schema before it is written.

    python examples/build_tasks.py [OUT.jsonl] [VLLM_SRC]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kernelgenbench import __version__
from kernelgenbench.dataset.jsonl import read_jsonl
from kernelgenbench.dataset.schema import validate_record
from kernelgenbench.reference_impls.inline import build_text

ATEN_IDS = ["aten/add.Tensor", "aten/add_.Tensor", "aten/mul.Tensor", "aten/mm", "aten/sum.dim_IntList",
            "aten/_softmax", "aten/bernoulli.p"]


def _code(module: str, *names: str) -> str:
    """The record text of reference module `module` holding `names` and what they reach."""
    return build_text([(f"kernelgenbench.reference_impls.{module}", n) for n in names])


def _param(name, type_, kind, *, mutable=False, direction="in", dtype=None, alias=None):
    return {"name": name, "type": type_, "kind": kind, "mutable": mutable, "alias": alias, "optional": False,
            "default": None, "keyword_only": False, "direction": direction, "dtype": dtype}


def _t(shape, dtype="float32", **init):
    return {"kind": "tensor", "shape": shape, "dtype": dtype, "init": init or {"dist": "normal"}}


def _v(value):
    return {"kind": "value", "value": value}


def _f(value):
    return {"kind": "float", "value": value}


def _base(source, name, signature, params, *, category, entry_point, reference, inputs, workloads, tolerance,
          cost, provenance, details, description):
    return {
        "record_version": 1, "id": f"{source}/{name}", "source": source, "name": name, "overload": "",
        "signature": signature, "params": params, "returns": [], "category": category, "tags": [],
        "description": description, "entry_point": entry_point, "semantics": "deterministic",
        "reference": reference, "inputs": inputs, "workloads": workloads,
        "workload_status": {"state": "ok", "reason": ""}, "tolerance": tolerance, "cost": cost,
        "provenance": provenance, "platforms": ["cuda", "rocm"] if source == "vllm" else ["any"] if source == "aten" else ["cuda"],
        "benchmarks": ["ms"], "details": details,
    }


def _vllm_prov(line):
    return {"upstream": "vllm", "version": "0.13.0", "commit": None, "file": "csrc/torch_bindings.cpp", "line": line,
            "extractor": __version__}


def _vllm_details(namespace):
    return {"vllm": {"namespace": namespace, "dispatch_keys": ["CUDA"], "guards": [], "reference_status": "ok"}}


VLLM_TOL = {"float16": {"atol": 1e-2, "rtol": 1e-2}, "bfloat16": {"atol": 2e-2, "rtol": 2e-2},
            "float32": {"atol": 1e-5, "rtol": 1e-5}}


def vllm_records() -> list[dict]:
    """rms_norm, fused_add_rms_norm, reshape_and_cache_flash (vLLM 0.13.0)."""
    rms_code = _code("vllm_norm", "rms_norm", "make_rms_norm_inputs")
    fused_code = _code("vllm_norm", "fused_add_rms_norm", "make_fused_add_rms_norm_inputs")
    cache_code = _code("vllm_cache", "reshape_and_cache_flash", "make_reshape_and_cache_flash_inputs")
    ref = lambda mod, code, fn: {"module": f"kernelgenbench.reference_impls.{mod}", "function": fn, "code": code}  # noqa: E731
    wl = lambda i, purpose, params: {"id": f"{purpose[0]}{i}", "purpose": purpose, "origin": "handwritten", "params": params}  # noqa: E731
    rms = _base(
        "vllm", "rms_norm", "rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()",
        [_param("result", "Tensor!", "tensor", mutable=True, direction="out"), _param("input", "Tensor", "tensor"),
         _param("weight", "Tensor", "tensor"), _param("epsilon", "float", "float")],
        category="normalization", entry_point="rms_norm", reference=ref("vllm_norm", rms_code, "rms_norm"),
        inputs=ref("vllm_norm", rms_code, "make_rms_norm_inputs"),
        workloads=[wl(0, "correctness", {"num_tokens": 7, "hidden_size": 768, "dtype": "float16"}),
                   wl(1, "correctness", {"num_tokens": 5, "hidden_size": 1000, "dtype": "float32", "strided_input": True}),
                   wl(2, "correctness", {"num_tokens": 3, "hidden_size": 512, "dtype": "bfloat16"}),
                   wl(0, "performance", {"num_tokens": 4096, "hidden_size": 8192, "dtype": "bfloat16"})],
        tolerance=VLLM_TOL, cost={"flops": "4 * input.numel", "bytes": "in_bytes + out_bytes", "unit": "vector"},
        provenance=_vllm_prov(155), details=_vllm_details("_C"),
        description="result = input / sqrt(mean(input^2, -1) + epsilon) * weight, computed in fp32.")
    fused = _base(
        "vllm", "fused_add_rms_norm",
        "fused_add_rms_norm(Tensor! input, Tensor! residual, Tensor weight, float epsilon) -> ()",
        [_param("input", "Tensor!", "tensor", mutable=True, direction="inout"),
         _param("residual", "Tensor!", "tensor", mutable=True, direction="inout"),
         _param("weight", "Tensor", "tensor"), _param("epsilon", "float", "float")],
        category="normalization", entry_point="fused_add_rms_norm",
        reference=ref("vllm_norm", fused_code, "fused_add_rms_norm"),
        inputs=ref("vllm_norm", fused_code, "make_fused_add_rms_norm_inputs"),
        workloads=[wl(0, "correctness", {"num_tokens": 7, "hidden_size": 768, "dtype": "float16"}),
                   wl(1, "correctness", {"num_tokens": 4, "hidden_size": 1000, "dtype": "float32", "strided_input": True}),
                   wl(0, "performance", {"num_tokens": 4096, "hidden_size": 8192, "dtype": "bfloat16"})],
        tolerance=VLLM_TOL, cost={"flops": "5 * input.numel", "bytes": "in_bytes + out_bytes", "unit": "vector"},
        provenance=_vllm_prov(161), details=_vllm_details("_C"),
        description="residual += input; input = RMSNorm(residual) * weight, both in place.")
    rc = _base(
        "vllm", "reshape_and_cache_flash",
        "reshape_and_cache_flash(Tensor key, Tensor value, Tensor! key_cache, Tensor! value_cache, "
        "Tensor slot_mapping, str kv_cache_dtype, Tensor k_scale, Tensor v_scale) -> ()",
        [_param("key", "Tensor", "tensor"), _param("value", "Tensor", "tensor"),
         _param("key_cache", "Tensor!", "tensor", mutable=True, direction="inout"),
         _param("value_cache", "Tensor!", "tensor", mutable=True, direction="inout"),
         _param("slot_mapping", "Tensor", "tensor"), _param("kv_cache_dtype", "str", "str"),
         _param("k_scale", "Tensor", "tensor"), _param("v_scale", "Tensor", "tensor")],
        category="kv-cache", entry_point="reshape_and_cache_flash",
        reference=ref("vllm_cache", cache_code, "reshape_and_cache_flash"),
        inputs=ref("vllm_cache", cache_code, "make_reshape_and_cache_flash_inputs"),
        workloads=[wl(0, "correctness", {"num_tokens": 42, "num_heads": 4, "head_size": 64, "block_size": 16, "dtype": "float16"}),
                   wl(1, "correctness", {"num_tokens": 11, "num_heads": 2, "head_size": 80, "block_size": 8, "dtype": "float32",
                                         "kv_cache_layout": "HND"}),
                   wl(0, "performance", {"num_tokens": 4096, "num_heads": 8, "head_size": 128, "block_size": 16,
                                         "dtype": "bfloat16"})],
        tolerance=VLLM_TOL, cost={"flops": "0", "bytes": "2 * (key.nbytes + value.nbytes)", "unit": "vector"},
        provenance=_vllm_prov(716), details=_vllm_details("_C_cache_ops"),
        description="Scatter each token's key and value rows into the paged caches at its slot (-1: padding, skipped).")
    return [rms, fused, rc]


def _cublas_prov(line):
    return {"upstream": "cublas", "version": "12.4", "commit": None, "file": "include/cublas_api.h", "line": line,
            "extractor": __version__}


CUBLAS_TOL = {"float32": {"atol": 1e-5, "rtol": 1e-5}}


def cublas_records() -> list[dict]:
    """cublasSaxpy_v2, cublasSscal_v2, cublasSgemm_v2 (cuBLAS 12.4)."""
    ref = lambda mod, code, fn: {"module": f"kernelgenbench.reference_impls.{mod}", "function": fn, "code": code}  # noqa: E731
    ptr = lambda name, const, mutable=False, direction="in": _param(  # noqa: E731
        name, ("const float*" if const else "float*"), "tensor", mutable=mutable, direction=direction, dtype="float32")
    alpha = lambda name="alpha": _param(name, "const float*", "float", dtype="float32")  # noqa: E731
    integer = lambda name: _param(name, "int", "int")  # noqa: E731
    wl = lambda i, purpose, args: {"id": f"{purpose[0]}{i}", "purpose": purpose, "origin": "handwritten", "args": args}  # noqa: E731
    details = lambda level: {"cublas": {"precision": "S", "level": level, "variant": ["_v2"]}}  # noqa: E731
    saxpy = _base(
        "cublas", "cublasSaxpy_v2",
        "cublasStatus_t cublasSaxpy_v2(cublasHandle_t handle, int n, const float* alpha, const float* x, int incx, float* y, int incy)",
        [integer("n"), alpha(), ptr("x", True), integer("incx"), ptr("y", False, True, "inout"), integer("incy")],
        category="blas1", entry_point="cublasSaxpy_v2", reference=ref("cublas_level1", _code("cublas_level1", "axpy"), "axpy"), inputs=None,
        workloads=[wl(0, "correctness", {"n": _v(1000), "alpha": _f(2.5), "x": _t([1000]), "incx": _v(1),
                                         "y": _t([1000]), "incy": _v(1)}),
                   wl(1, "correctness", {"n": _v(300), "alpha": _f(-0.75), "x": _t([600]), "incx": _v(2),
                                         "y": _t([900]), "incy": _v(3)}),
                   wl(0, "performance", {"n": _v(1 << 26), "alpha": _f(1.5), "x": _t([1 << 26]), "incx": _v(1),
                                         "y": _t([1 << 26]), "incy": _v(1)})],
        tolerance=CUBLAS_TOL, cost={"flops": "2 * n", "bytes": "12 * n", "unit": "vector"},
        provenance=_cublas_prov(568), details=details("1"), description="y = alpha * x + y.")
    sscal = _base(
        "cublas", "cublasSscal_v2",
        "cublasStatus_t cublasSscal_v2(cublasHandle_t handle, int n, const float* alpha, float* x, int incx)",
        [integer("n"), alpha(), ptr("x", False, True, "inout"), integer("incx")],
        category="blas1", entry_point="cublasSscal_v2", reference=ref("cublas_level1", _code("cublas_level1", "scal"), "scal"), inputs=None,
        workloads=[wl(0, "correctness", {"n": _v(777), "alpha": _f(0.3), "x": _t([777]), "incx": _v(1)}),
                   wl(1, "correctness", {"n": _v(200), "alpha": _f(-2.0), "x": _t([801]), "incx": _v(4)}),
                   wl(0, "performance", {"n": _v(1 << 26), "alpha": _f(1.5), "x": _t([1 << 26]), "incx": _v(1)})],
        tolerance=CUBLAS_TOL, cost={"flops": "n", "bytes": "8 * n", "unit": "vector"},
        provenance=_cublas_prov(508), details=details("1"), description="x = alpha * x.")
    enum = lambda name: _param(name, "cublasOperation_t", "enum")  # noqa: E731

    def gemm_case(i, purpose, ta, tb, m, n, k):
        a_shape = m * k
        b_shape = k * n
        lda = m if ta == "N" else k
        ldb = k if tb == "N" else n
        return wl(i, purpose, {"transa": _v(ta), "transb": _v(tb), "m": _v(m), "n": _v(n), "k": _v(k),
                               "alpha": _f(1.5), "A": _t([a_shape]), "lda": _v(lda), "B": _t([b_shape]), "ldb": _v(ldb),
                               "beta": _f(0.5), "C": _t([m * n]), "ldc": _v(m)})

    sgemm = _base(
        "cublas", "cublasSgemm_v2",
        "cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, "
        "int m, int n, int k, const float* alpha, const float* A, int lda, const float* B, int ldb, "
        "const float* beta, float* C, int ldc)",
        [enum("transa"), enum("transb"), integer("m"), integer("n"), integer("k"), alpha(), ptr("A", True),
         integer("lda"), ptr("B", True), integer("ldb"), alpha("beta"), ptr("C", False, True, "inout"), integer("ldc")],
        category="blas3", entry_point="cublasSgemm_v2", reference=ref("cublas_level3", _code("cublas_level3", "gemm"), "gemm"), inputs=None,
        workloads=[gemm_case(0, "correctness", "N", "N", 33, 20, 17), gemm_case(1, "correctness", "T", "N", 40, 24, 70),
                   gemm_case(2, "correctness", "N", "T", 16, 48, 32),
                   gemm_case(0, "performance", "N", "N", 4096, 4096, 4096)],
        tolerance={"float32": {"atol": 1e-4, "rtol": 1e-4}}, cost={"flops": "2 * m * n * k", "bytes": "4 * (m * k + k * n + 2 * m * n)", "unit": "matrix"},
        provenance=_cublas_prov(3048), details=details("3"), description="C = alpha * op(A) op(B) + beta * C, column-major.")
    return [saxpy, sscal, sgemm]


def aten_records() -> list[dict]:
    """The curated ATen overloads from the real extractor (default workloads, no OpInfo tracing)."""
    from kernelgenbench.extractors.aten import extract

    by_id = {r["id"]: r for r in extract(only_curated=True, opinfo=False).records}
    missing = [i for i in ATEN_IDS if i not in by_id]
    if missing:
        raise SystemExit(f"the ATen extractor gave no record for {missing}")
    return [by_id[i] for i in ATEN_IDS]


def extracted(command: list[str], ids: list[str]) -> list[dict]:
    """Records of `ids` from a real extractor run (`kgb-extract vllm|cublas ...`)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "records.jsonl"
        subprocess.run([str(Path(sys.executable).parent / "kgb-extract"), *command, "--out", str(out)], check=True)
        read = read_jsonl([out])
        if read.problems:
            raise SystemExit(read.problems[0])
        by_id = {r.record["id"]: r.record for r in read.records}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise SystemExit(f"the extractor gave no record for {missing}")
    return [by_id[i] for i in ids]


VLLM_IDS = ["vllm/rms_norm", "vllm/fused_add_rms_norm", "vllm/reshape_and_cache_flash"]
CUBLAS_IDS = ["cublas/cublasSaxpy_v2", "cublas/cublasSscal_v2", "cublas/cublasSgemm_v2"]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "tasks.jsonl"
    vllm_source = sys.argv[2] if len(sys.argv) > 2 else "/work/vllm-src/vllm-0.13.0"
    if Path(vllm_source).exists():
        records = (aten_records() + extracted(["vllm", "--source", vllm_source, "--no-progress"], VLLM_IDS)
                   + extracted(["cublas", "--only-curated"], CUBLAS_IDS))
    else:  # no vLLM source here: the hand-assembled records (same upstream signatures and references)
        records = aten_records() + vllm_records() + cublas_records()
    for r in records:
        validate_record(r)
    out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    print(f"wrote {len(records)} records to {out}")


if __name__ == "__main__":
    main()
