"""Turn parsed cuBLAS prototypes into task records: every declared function, the curated 50 with benchmarks."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import kernelgenbench
from kernelgenbench.dataset.record import RECORD_VERSION, Direction, Param, Provenance
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.errors import KgbError
from kernelgenbench.extractors.cublas.classify import Classification, classify, families_data
from kernelgenbench.extractors.cublas.directions import ParamFacts, Passing, param_facts
from kernelgenbench.extractors.cublas.headers import HeaderSet
from kernelgenbench.extractors.cublas.parse import Header, Prototype, parse_header
from kernelgenbench.extractors.cublas.tasks_file import curated_names, tasks_data
from kernelgenbench.locations import Location
from kernelgenbench.reference_impls.inline import build_text

_REF_PACKAGE = "kernelgenbench.reference_impls"
_INPUTS_MODULE = "cublas_inputs"
_CUDA_TYPES = {"CUDA_R_16F": "float16", "CUDA_R_16BF": "bfloat16", "CUDA_R_32F": "float32",
               "CUDA_R_64F": "float64", "CUDA_C_32F": "complex64", "CUDA_C_64F": "complex128"}

CONVENTION = (
    "Calling convention: the C arguments without the handle, by the header's names. Device pointers are "
    "1-D device tensors holding column-major storage (element (i, j) at [i + j*ld]); vectors are read at "
    "stride inc, a negative inc starting from the end as in BLAS. Host scalars (alpha, beta) are Python "
    "numbers, complex for C/Z routines. Enums are strings: trans 'N'/'T'/'C', uplo 'U'/'L', diag 'N'/'U', "
    "side 'L'/'R'; other enums (cudaDataType) by enumerator name ('CUDA_R_16F'). Outputs are written in "
    "place, as cuBLAS does; the function returns None."
)
_RESULT = (" The scalar result is written to `result`, a 1-element device tensor of the result type "
           "(cuBLAS's device pointer mode).")
_BATCHED = " Batched pointer arrays are Python lists of device tensors, one per batch entry."
_STRIDED = (" StridedBatched operands are one device tensor each, batch entry b starting at element "
            "b*stride (a stride of 0 shares one operand).")
_BETA0 = " beta = 0 means the output is not read: NaNs in it must not leak."


@dataclass(frozen=True)
class Extraction:
    """The records of one header, and the functions that could not be turned into a valid record."""

    header: Header
    records: tuple[dict[str, Any], ...]
    failures: tuple[str, ...] = field(default=())


def extract(headers: HeaderSet) -> Extraction:
    """Parse the header and build one record per declared function; broken ones are reported, not fatal."""
    header = parse_header(headers.api_header, library_types=headers.library_types)
    records: list[dict[str, Any]] = []
    failures: list[str] = []
    for proto in header.functions:
        where = Location(headers.api_header.name, proto.location.line)  # failures name the header, not its path
        try:
            rec = build_record(proto, header, origin=headers.origin)
        except KgbError as exc:
            failures.append(where.message(f"{proto.name}: {exc}"))
            continue
        errors = record_errors(rec)
        if errors:
            failures.append(where.message(f"{proto.name}: {errors[0]}"))
            continue
        records.append(rec)
    return Extraction(header, tuple(records), tuple(failures))


def _c_param(f: ParamFacts) -> dict[str, Any]:
    t = f.param.type
    return {
        "name": f.param.name, "c_type": str(t) + ("[]" if f.param.array else ""), "base_type": t.base,
        "const": t.const, "pointer_const": list(t.pointers), "pointer_depth": f.param.pointer_depth,
        "array": f.param.array, "direction": f.direction.value, "direction_source": f.direction_source.value,
        "passing": f.passing.value, "enum": f.enum, "dtype": f.dtype,
    }


def _param(f: ParamFacts) -> dict[str, Any]:
    what = {
        Passing.DEVICE_TENSOR: "1-D device tensor (column-major storage)",
        Passing.DEVICE_TENSOR_LIST: "list of 1-D device tensors, one per batch entry",
        Passing.HOST_SCALAR: "host scalar (a Python number)",
        Passing.ENUM: f"enum {f.enum} as a string",
        Passing.INT: "integer",
        Passing.OTHER: "host value or pointer (not part of the candidate convention)",
    }[f.passing]
    return Param(f.param.name, str(f.param.type) + ("[]" if f.param.array else ""), f.kind,
                 mutable=f.direction is not Direction.IN, optional=False, default=None, keyword_only=False,
                 dtype=f.dtype if f.passing in (Passing.DEVICE_TENSOR, Passing.DEVICE_TENSOR_LIST) else None,
                 alias=None, direction=f.direction, description=what).to_dict()


def _enums(header: Header, facts: list[ParamFacts]) -> dict[str, Any]:
    short = families_data()["enum_short_names"]
    out: dict[str, Any] = {}
    for f in facts:
        if f.enum is None or f.enum in out:
            continue
        e = header.enum(f.enum)
        names = short.get(f.enum, {})
        out[f.enum] = {
            "values": {x.name: x.value for x in e.enumerators},
            "candidate_names": {x.name: names.get(x.name, x.name) for x in e.enumerators},
            "resolved": bool(e.enumerators),
        }
    return out


def _description(cls: Classification, facts: list[ParamFacts]) -> str:
    if cls.is_helper:
        return f"cuBLAS helper {cls.name} (handle, stream, mode or logging management); not a BLAS operation."
    text = (cls.does + ". ") if cls.does else ""
    text += CONVENTION
    names = {f.param.name for f in facts}
    if "result" in names:
        text += _RESULT
    if any(f.passing is Passing.DEVICE_TENSOR_LIST for f in facts):
        text += _BATCHED
    if "StridedBatched" in cls.variants:
        text += _STRIDED
    if "beta" in names:
        text += _BETA0
    return text


def build_record(proto: Prototype, header: Header, *, origin: str) -> dict[str, Any]:
    """The task record of one prototype; curated routines get reference, inputs, workloads and tolerance."""
    cls = classify(proto.name)
    facts = [param_facts(cls, header, p) for p in proto.params]
    cand = [f for f in facts if f.passing is not Passing.HANDLE]
    curated = proto.name in curated_names()
    tags = (["helper"] if cls.is_helper else [f"level{cls.level}" if cls.level in "123" else cls.level,
                                              f"precision:{cls.precision}"]) + list(cls.variants)
    rec: dict[str, Any] = {
        "record_version": RECORD_VERSION,
        "id": f"cublas/{proto.name}",
        "source": "cublas",
        "name": proto.name,
        "overload": "",
        "signature": str(proto),
        "params": [_param(f) for f in cand],
        "returns": [],
        "category": cls.category,
        "tags": list(dict.fromkeys(tags)),
        "description": _description(cls, facts),
        "entry_point": proto.name,
        "semantics": "deterministic",
        "reference": None,
        "inputs": None,
        "workloads": [],
        "workload_status": {"state": "none", "reason": "not among the 50 curated routines: no reference or "
                            "workloads written for it yet"},
        "tolerance": {},
        "cost": None,
        "provenance": Provenance("cublas", header.version, None, proto.location.file.rsplit("/", 1)[-1],
                                 proto.location.line, kernelgenbench.__version__).to_dict(),
        # The native baseline (cuBLAS) exists on NVIDIA GPUs only; a Triton candidate could run elsewhere,
        # but without the library the task has no baseline, so it is a CUDA task.
        "platforms": ["cuda"],
        "benchmarks": [],
        "details": {"cublas": {
            "precision": cls.precision, "level": cls.level, "variant": list(cls.variants), "family": cls.family,
            "curated": curated, "return_type": str(proto.returns),
            "header": {"file": proto.location.file.rsplit("/", 1)[-1], "version": header.version,
                       "origin": origin},
            "c_params": [_c_param(f) for f in facts],
            "enums": _enums(header, facts),
        }},
    }
    if curated:
        _add_benchmark(rec, proto.name, cand)
    return rec


def _add_benchmark(rec: dict[str, Any], name: str, cand: list[ParamFacts]) -> None:
    data = tasks_data()
    routine = data["routines"].get(name)
    if routine is None:
        raise KgbError(f"{name} is curated but has no entry in data/cublas_tasks.yaml")
    spec = data["specs"][routine["spec"]]
    base = dict(routine.get("params", {}))
    workloads = []
    reductions = []
    out_dtypes: set[str] = set()
    for w in spec["workloads"]:
        params = base | dict(w["params"])
        workloads.append({"id": w["id"], "purpose": w["purpose"], "origin": w["origin"], "params": params,
                          "description": w.get("description", "")})
        reductions.append(_eval(spec["reduction"], params, where=f"{name}/{w['id']}"))
        out_dtypes.add(_CUDA_TYPES.get(params.get("ctype", ""), params["dtype"]))
    for f in cand:
        if f.direction is not Direction.IN and f.dtype and f.passing is not Passing.OTHER:
            out_dtypes.add(f.dtype)
    if any(p.param.name == "result" for p in cand) and base["dtype"] == "complex128":
        out_dtypes.add("complex128")
    if rec["details"]["cublas"]["family"] == "asum":
        out_dtypes.add("float64" if base["dtype"] in ("float64", "complex128") else "float32")
    tol = data["tolerance"]
    k = max(1, max(reductions))
    # Rounding grows with the reduction in the precision the routine accumulates in (fp16 for Hgemm, fp32
    # for SgemmEx whatever its storage types); the output's own rounding is the floor.
    acc = tol["base"][base["dtype"]] * math.sqrt(k)
    rec["tolerance"] = {dt: {"atol": max(tol["floor"][dt], acc), "rtol": max(tol["floor"][dt], acc)}
                        for dt in sorted(out_dtypes)}
    ref, inputs = f"{_REF_PACKAGE}.{spec['module']}", f"{_REF_PACKAGE}.{_INPUTS_MODULE}"
    # One text per record: the reference and its generator with exactly what they reach (inline.build_text).
    text = build_text([(ref, name), (inputs, spec["inputs"])])
    rec["reference"] = {"module": ref, "function": name, "code": text}
    rec["inputs"] = {"module": inputs, "function": spec["inputs"], "code": text}
    rec["workloads"] = workloads
    purposes = {w["purpose"] for w in workloads}
    rec["workload_status"] = ({"state": "ok", "reason": ""} if purposes == {"correctness", "performance"}
                              else {"state": "partial", "reason": "only " + "/".join(sorted(purposes))})
    complex_dtype = base["dtype"].startswith("complex")
    flops = f"4*({spec['flops']})" if complex_dtype else spec["flops"]
    rec["cost"] = {"flops": flops, "bytes": "in_bytes + out_bytes", "unit": spec["unit"]}
    rec["benchmarks"] = ["ms"]
    rec["details"]["cublas"]["reduction"] = {"expression": spec["reduction"], "max": k}


def _eval(expr: str, params: Mapping[str, Any], *, where: str) -> int:
    names = {"trans": "N", "side": "L"} | dict(params)
    try:
        return int(eval(expr, {"__builtins__": {}}, names))  # noqa: S307 - expressions from our own data file
    except Exception as exc:  # a bad expression in the data file: name the task and the expression
        raise KgbError(f"{where}: cannot evaluate reduction {expr!r}: {exc}") from None
