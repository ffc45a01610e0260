"""Small valid records of each source for dataset tests, and helpers that write them as JSON Lines."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from records import add_tensor_record


def _param(name: str, type_: str, kind: str, *, mutable: bool = False, default: str | None = None,
           keyword_only: bool = False, optional: bool = False, alias: str | None = None,
           direction: str = "in", dtype: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": type_, "kind": kind, "mutable": mutable, "alias": alias, "optional": optional,
            "default": default, "keyword_only": keyword_only, "direction": direction, "dtype": dtype, **extra}


def _tensor(shape: list[int], dtype: str = "float32", **init: Any) -> dict[str, Any]:
    return {"kind": "tensor", "shape": shape, "dtype": dtype, "init": {"dist": "normal", **init}}


def add_out_record() -> dict[str, Any]:
    """aten/add.out: curated (ms) but not in the portable set; an out= overload that writes `out`."""
    r = add_tensor_record()
    r.update(
        id="aten/add.out", overload="out", entry_point="add_out", benchmarks=["ms"], platforms=["cuda", "rocm"],
        signature="add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
        returns=[{"name": "", "type": "Tensor(a!)", "kind": "tensor", "alias": "a"}],
    )
    r["params"].append(_param("out", "Tensor(a!)", "tensor", mutable=True, keyword_only=True, alias="a",
                              direction="out"))
    r["reference"] = {"module": "kernelgenbench.reference_impls.aten", "function": "add_out",
                      "code": "import torch\n\n\ndef add_out(self, other, *, alpha=1, out):\n"
                              "    return torch.add(self, other, alpha=alpha, out=out)\n"}
    for w in r["workloads"]:
        w["args"]["out"] = copy.deepcopy(w["args"]["self"])
    r["workloads"][0]["args"]["out"]["shape"] = [5, 7]
    r["details"]["aten"].update(schema_kind="out")
    r["provenance"]["line"] = 530
    return r


def mul_tensor_record() -> dict[str, Any]:
    """aten/mul.Tensor: outside every curated set, with workloads (so only in aten-all)."""
    r = add_tensor_record()
    r.update(id="aten/mul.Tensor", name="mul", entry_point="mul_Tensor", benchmarks=[],
             signature="mul.Tensor(Tensor self, Tensor other) -> Tensor", description="Multiplies input by other.")
    r["params"] = r["params"][:2]
    r["reference"] = {"module": "kernelgenbench.reference_impls.aten", "function": "mul_Tensor",
                      "code": "import torch\n\n\ndef mul_Tensor(self, other):\n    return torch.mul(self, other)\n"}
    for w in r["workloads"]:
        w["args"].pop("alpha", None)
    r["details"]["aten"].update(functional="aten/mul.Tensor", inplace="aten/mul_.Tensor", out="aten/mul.out")
    r["provenance"]["line"] = 4020
    return r


def empty_record() -> dict[str, Any]:
    """aten/empty_like: no workloads (state none), so in no config at all."""
    r = add_tensor_record()
    r.update(id="aten/empty_like", name="empty_like", overload="", entry_point="empty_like", benchmarks=[],
             signature="empty_like(Tensor self) -> Tensor", semantics="uninitialized", category="creation",
             workloads=[], workload_status={"state": "none", "reason": "no OpInfo sample traces to this overload"},
             cost=None, description="")
    r["params"] = r["params"][:1]
    r["details"]["aten"].update(functional="aten/empty_like", inplace=None, out=None, structured=False)
    return r


_RMS_NORM_REF = '''import torch


def rms_norm(out, input, weight, epsilon):
    x = input.float()
    var = x.pow(2).mean(dim=-1, keepdim=True)
    out.copy_((x * torch.rsqrt(var + epsilon)).to(input.dtype) * weight)
'''

_RMS_NORM_INPUTS = '''import torch


def rms_norm_inputs(params, *, seed, device):
    g = torch.Generator(device="cpu").manual_seed(seed)
    dtype = getattr(torch, params["dtype"])
    x = torch.randn(params["tokens"], params["hidden"], generator=g).to(dtype).to(device)
    w = torch.randn(params["hidden"], generator=g).to(dtype).to(device)
    return {"out": torch.empty_like(x), "input": x, "weight": w, "epsilon": 1e-6}
'''


def rms_norm_record() -> dict[str, Any]:
    """vllm/rms_norm: a curated vLLM op whose inputs come from a generator (params workloads)."""
    return {
        "record_version": 1,
        "id": "vllm/rms_norm",
        "source": "vllm",
        "name": "rms_norm",
        "overload": "",
        "signature": "rms_norm(Tensor! result, Tensor input, Tensor weight, float epsilon) -> ()",
        "params": [
            _param("out", "Tensor!", "tensor", mutable=True, direction="out",
                   description="Output, same shape and dtype as input."),
            _param("input", "Tensor", "tensor"),
            _param("weight", "Tensor", "tensor"),
            _param("epsilon", "float", "float"),
        ],
        "returns": [],
        "category": "normalization",
        "tags": ["CUDA"],
        "description": "Root-mean-square normalization over the last dimension, scaled by weight.",
        "entry_point": "rms_norm",
        "semantics": "deterministic",
        "reference": {"module": "kernelgenbench.reference_impls.vllm_norm", "function": "rms_norm",
                      "code": _RMS_NORM_REF},
        "inputs": {"module": "kernelgenbench.reference_impls.vllm_norm", "function": "rms_norm_inputs",
                   "code": _RMS_NORM_INPUTS},
        "workloads": [
            {"id": "c0", "purpose": "correctness", "origin": "vllm-test:tests/kernels/core/test_layernorm.py::test_rms_norm",
             "params": {"tokens": 7, "hidden": 768, "dtype": "bfloat16"}, "description": "bf16 [7, 768]"},
            {"id": "p0", "purpose": "performance", "origin": "handwritten",
             "params": {"tokens": 4096, "hidden": 8192, "dtype": "bfloat16"}},
        ],
        "workload_status": {"state": "ok", "reason": ""},
        "tolerance": {"bfloat16": {"atol": 1e-2, "rtol": 1.6e-2}, "float32": {"atol": 1e-5, "rtol": 1e-5}},
        "cost": {"flops": "4 * input.numel", "bytes": "in_bytes + out_bytes", "unit": "vector"},
        "provenance": {"upstream": "vllm", "version": "0.13.0", "commit": "72506c98349d6bcd32b4e33eec7b5513453c1502",
                       "file": "csrc/torch_bindings.cpp", "line": 120, "extractor": "0.1.0"},
        "platforms": ["cuda"],
        "benchmarks": ["ms"],
        "details": {"vllm": {"namespace": "_C", "dispatch_keys": ["CUDA"], "guards": [], "reference_status": "ok"}},
    }


_SAXPY_REF = '''import torch


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    xs = x[: 1 + (n - 1) * incx : incx]
    ys = y[: 1 + (n - 1) * incy : incy]
    ys.add_(xs, alpha=alpha)
'''


def saxpy_record() -> dict[str, Any]:
    """cublas/cublasSaxpy_v2: a curated BLAS-1 routine with an in-out vector."""
    return {
        "record_version": 1,
        "id": "cublas/cublasSaxpy_v2",
        "source": "cublas",
        "name": "cublasSaxpy_v2",
        "overload": "",
        "signature": "cublasStatus_t cublasSaxpy_v2(cublasHandle_t handle, int n, const float *alpha, "
                     "const float *x, int incx, float *y, int incy)",
        "params": [
            _param("n", "int", "int", description="Number of elements."),
            _param("alpha", "const float *", "float", dtype="float32", description="Scale of x (host scalar)."),
            _param("x", "const float *", "tensor", dtype="float32"),
            _param("incx", "int", "int"),
            _param("y", "float *", "tensor", mutable=True, direction="inout", dtype="float32"),
            _param("incy", "int", "int"),
        ],
        "returns": [],
        "category": "blas1",
        "tags": ["_v2"],
        "description": "y = alpha * x + y over n strided elements.",
        "entry_point": "cublasSaxpy_v2",
        "semantics": "deterministic",
        "reference": {"module": "kernelgenbench.reference_impls.cublas_blas1", "function": "cublasSaxpy_v2",
                      "code": _SAXPY_REF},
        "inputs": None,
        "workloads": [
            {"id": "c0", "purpose": "correctness", "origin": "handwritten",
             "args": {"n": {"kind": "value", "value": 1000}, "alpha": {"kind": "value", "value": 0.5},
                      "x": _tensor([1000]), "incx": {"kind": "value", "value": 1},
                      "y": _tensor([2000]), "incy": {"kind": "value", "value": 2}}},
            {"id": "p0", "purpose": "performance", "origin": "default:blas1",
             "args": {"n": {"kind": "value", "value": 1 << 24}, "alpha": {"kind": "value", "value": 2.0},
                      "x": _tensor([1 << 24]), "incx": {"kind": "value", "value": 1},
                      "y": _tensor([1 << 24]), "incy": {"kind": "value", "value": 1}}},
        ],
        "workload_status": {"state": "ok", "reason": ""},
        "tolerance": {"float32": {"atol": 1e-5, "rtol": 1e-5}},
        "cost": {"flops": "2 * n", "bytes": "3 * n * 4", "unit": "vector"},
        "provenance": {"upstream": "cublas", "version": "12.4.5.8", "commit": None,
                       "file": "include/cublas_api.h", "line": 1000, "extractor": "0.1.0"},
        "platforms": ["cuda"],
        "benchmarks": ["ms"],
        "details": {"cublas": {"precision": "S", "level": "1", "variant": ["_v2"]}},
    }


def all_records() -> list[dict[str, Any]]:
    """One of everything: curated+portable, curated, uncurated with and without workloads, vLLM, cuBLAS."""
    return [add_tensor_record(), add_out_record(), mul_tensor_record(), empty_record(), rms_norm_record(),
            saxpy_record()]


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> Path:
    """Write records as JSON Lines (one object a line) and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def write_by_source(folder: Path, records: Iterable[dict[str, Any]]) -> list[Path]:
    """Write one JSONL per source, as the three extractors would, and return the files."""
    by_source: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_source.setdefault(r["source"], []).append(r)
    return [write_jsonl(folder / f"{src}.jsonl", recs) for src, recs in sorted(by_source.items())]
