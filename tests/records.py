"""Small, valid task records for tests that need one (built the way extractors build them)."""

from __future__ import annotations

import copy
from typing import Any

_ADD_REFERENCE = '''import torch


def add_Tensor(self, other, *, alpha=1):
    return torch.ops.aten.add.Tensor(self, other, alpha=alpha)
'''


def add_tensor_record() -> dict[str, Any]:
    """A complete record for aten/add.Tensor with one correctness and one performance workload."""
    t = lambda shape: {"kind": "tensor", "shape": shape, "dtype": "float32", "init": {"dist": "normal"}}  # noqa: E731
    return copy.deepcopy(
        {
            "record_version": 1,
            "id": "aten/add.Tensor",
            "source": "aten",
            "name": "add",
            "overload": "Tensor",
            "signature": "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            "params": [
                {"name": "self", "type": "Tensor", "kind": "tensor", "mutable": False, "alias": None,
                 "optional": False, "default": None, "keyword_only": False, "direction": "in", "dtype": None},
                {"name": "other", "type": "Tensor", "kind": "tensor", "mutable": False, "alias": None,
                 "optional": False, "default": None, "keyword_only": False, "direction": "in", "dtype": None},
                {"name": "alpha", "type": "Scalar", "kind": "scalar", "mutable": False, "alias": None,
                 "optional": False, "default": "1", "keyword_only": True, "direction": "in", "dtype": None},
            ],
            "returns": [{"name": "", "type": "Tensor", "kind": "tensor", "alias": None}],
            "category": "elementwise",
            "tags": ["core", "pointwise"],
            "description": "Adds other, scaled by alpha, to input.",
            "entry_point": "add_Tensor",
            "semantics": "deterministic",
            "reference": {"module": "kernelgenbench.reference_impls.aten", "function": "add_Tensor",
                          "code": _ADD_REFERENCE},
            "inputs": None,
            "workloads": [
                {"id": "c0", "purpose": "correctness", "origin": "handwritten",
                 "args": {"self": t([5, 7]), "other": t([7]), "alpha": {"kind": "value", "value": 2}}},
                {"id": "p0", "purpose": "performance", "origin": "default:elementwise",
                 "args": {"self": t([4096, 4096]), "other": t([4096, 4096])}},
            ],
            "workload_status": {"state": "ok", "reason": ""},
            "tolerance": {"float32": {"atol": 1e-5, "rtol": 1.3e-6}},
            "cost": {"flops": "out_numel", "bytes": "in_bytes + out_bytes", "unit": "vector"},
            "provenance": {"upstream": "pytorch", "version": "2.13.0", "commit": None,
                           "file": "aten/src/ATen/native/native_functions.yaml", "line": 512,
                           "extractor": "0.1.0"},
            "platforms": ["any"],
            "benchmarks": ["ms", "mc"],
            "details": {"aten": {"schema_kind": "functional", "variants": ["function", "method"],
                                 "functional": "aten/add.Tensor", "inplace": "aten/add_.Tensor",
                                 "out": "aten/add.out", "structured": True, "dispatch": ["CPU", "CUDA"],
                                 "registered": True}},
        }
    )
