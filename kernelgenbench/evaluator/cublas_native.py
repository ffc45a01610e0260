"""The real cuBLAS through ctypes: the native baseline and the check of the cuBLAS references.

Used by the evaluator and the benches only; never offered to candidates. Calls are marshalled from a
record's `details.cublas.c_params` (the header's prototype), so any routine whose arguments follow the
candidate convention can be called: device tensors -> their data_ptr(), lists of tensors -> a device
array of pointers, Python numbers -> host scalars of the C type, enum names -> their values.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.errors import KgbError, SourceNotFound
from kernelgenbench.evaluator.inputs import load_code, make_args

_INT64 = {"int64_t", "long long int", "long long", "size_t"}
_POINTER_MODE_HOST, _POINTER_MODE_DEVICE = 0, 1
_DEFAULT_MATH = 0  # CUBLAS_DEFAULT_MATH: no TF32, the precision the fp32 tolerances assume


class _Complex64(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class _Complex128(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


def _library_candidates() -> list[str]:
    found: list[str] = []
    if os.environ.get("KGB_LIBCUBLAS"):
        found.append(os.environ["KGB_LIBCUBLAS"])
    # The nvidia wheels torch depends on sit beside torch in site-packages.
    site = Path(torch.__file__).resolve().parent.parent
    for pattern in ("nvidia/cu*/lib/libcublas.so.*", "nvidia/cublas/lib/libcublas.so.*", "torch/lib/libcublas.so*"):
        found.extend(sorted(glob.glob(str(site / pattern)), reverse=True))
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            found.extend(sorted(glob.glob(f"{home}/lib64/libcublas.so*"), reverse=True))
    name = ctypes.util.find_library("cublas")
    if name:
        found.append(name)
    return [f for f in found if "Lt" not in Path(f).name]


def _load(path: str) -> ctypes.CDLL:
    # libcublas needs libcublasLt; load the one beside it first so that the loader need not search for it.
    p = Path(path)
    lt = p.with_name(p.name.replace("libcublas", "libcublasLt"))
    if p.is_absolute() and lt.exists():
        ctypes.CDLL(str(lt), mode=ctypes.RTLD_GLOBAL)
    return ctypes.CDLL(path)


def find_libcublas() -> str:
    """Path of a loadable libcublas: $KGB_LIBCUBLAS, the nvidia wheel beside torch, or a CUDA toolkit."""
    for cand in _library_candidates():
        try:
            _load(cand)
        except OSError:
            continue
        return cand
    raise SourceNotFound("no libcublas found: install torch with CUDA (it brings the nvidia-cublas wheel), "
                         "set CUDA_HOME, or point KGB_LIBCUBLAS at libcublas.so")


class CublasError(KgbError, RuntimeError):
    """A cuBLAS call returned a status other than CUBLAS_STATUS_SUCCESS."""


class Cublas:
    """One libcublas and one handle bound to torch's current CUDA stream."""

    def __init__(self, path: str | None = None) -> None:
        if not torch.cuda.is_available():
            raise SourceNotFound("the native cuBLAS baseline needs a CUDA device; none is visible")
        torch.cuda.init()
        self.path = path or find_libcublas()
        self.lib = _load(self.path)
        self.handle = ctypes.c_void_p()
        self._check("cublasCreate_v2", self.lib.cublasCreate_v2(ctypes.byref(self.handle)))
        self._check("cublasSetMathMode", self.lib.cublasSetMathMode(self.handle, _DEFAULT_MATH))
        v = ctypes.c_int()
        self._check("cublasGetVersion_v2", self.lib.cublasGetVersion_v2(self.handle, ctypes.byref(v)))
        self.version = f"{v.value // 10000}.{v.value // 100 % 100}.{v.value % 100}"

    def _check(self, name: str, status: int) -> None:
        if status != 0:
            self.lib.cublasGetStatusName.restype = ctypes.c_char_p
            raise CublasError(f"{name} returned {self.lib.cublasGetStatusName(status).decode()} ({status})")

    def close(self) -> None:
        """Destroy the handle."""
        if self.handle:
            self.lib.cublasDestroy_v2(self.handle)
            self.handle = ctypes.c_void_p()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the library may already be gone
            pass

    def call(self, task: Task, kwargs: Mapping[str, Any]) -> None:
        """Call the task's routine on candidate-convention arguments (device tensors written in place)."""
        details = task.details["cublas"]
        c_params = details["c_params"]
        enums = details.get("enums", {})
        keep: list[Any] = []  # device pointer arrays must outlive the asynchronous call
        argtypes: list[Any] = []
        values: list[Any] = []
        for p in c_params:
            ctype, value = self._marshal(p, kwargs, enums, keep)
            argtypes.append(ctype)
            values.append(value)
        fn = getattr(self.lib, task.name)
        fn.argtypes, fn.restype = argtypes, ctypes.c_int
        self._check("cublasSetStream_v2",
                    self.lib.cublasSetStream_v2(self.handle, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)))
        mode = _POINTER_MODE_DEVICE if "result" in kwargs else _POINTER_MODE_HOST
        self._check("cublasSetPointerMode_v2", self.lib.cublasSetPointerMode_v2(self.handle, mode))
        # Asynchronous like cuBLAS itself: host scalars are read during the call, and the pointer arrays
        # are freed into torch's stream-ordered allocator, so nothing is reused before the kernel runs.
        self._check(task.name, fn(*values))
        del keep

    def _marshal(self, p: Mapping[str, Any], kwargs: Mapping[str, Any], enums: Mapping[str, Any],
                 keep: list[Any]) -> tuple[Any, Any]:
        passing, base = p["passing"], p["base_type"]
        if passing == "handle":
            return ctypes.c_void_p, self.handle
        if p["name"] not in kwargs:
            raise KgbError(f"argument {p['name']!r} missing for the native call")
        v = kwargs[p["name"]]
        if passing == "int":
            return (ctypes.c_int64, int(v)) if base in _INT64 else (ctypes.c_int, int(v))
        if passing == "enum":
            return ctypes.c_int, _enum_value(enums[p["enum"]], v)
        if passing == "host_scalar":
            scalar = _host_scalar(base, v)
            keep.append(scalar)
            return ctypes.c_void_p, ctypes.cast(ctypes.pointer(scalar), ctypes.c_void_p)
        if passing == "device_tensor":
            return ctypes.c_void_p, ctypes.c_void_p(_device_ptr(p["name"], v))
        if passing == "device_tensor_list":
            ptrs = torch.tensor([_device_ptr(p["name"], t) for t in v], dtype=torch.int64, device=v[0].device)
            keep.append(ptrs)
            return ctypes.c_void_p, ctypes.c_void_p(ptrs.data_ptr())
        raise KgbError(f"parameter {p['name']} ({p['c_type']}) has no candidate-convention value to pass")


def routine(task: Task, *, lib: Cublas | None = None) -> Callable[..., None]:
    """The real cuBLAS routine of a task, callable exactly as the candidate is (positional or keyword)."""
    if not isinstance(task, Task):
        raise KgbError("cublas_native.routine needs the Task: calls are marshalled from its details.cublas.c_params")
    lib = lib or Cublas()
    names = [p.name for p in task.params]

    def call(*args: Any, **kwargs: Any) -> None:
        lib.call(task, dict(zip(names, args, strict=False)) | kwargs)

    call.__name__ = task.name
    return call


def _enum_value(enum: Mapping[str, Any], name: Any) -> int:
    for enumerator, short in enum["candidate_names"].items():
        if name in (short, enumerator):
            return int(enum["values"][enumerator])
    raise KgbError(f"{name!r} is not a value of this enum (expected one of {sorted(set(enum['candidate_names'].values()))})")


def _host_scalar(base: str, v: Any) -> Any:
    if base == "float":
        return ctypes.c_float(float(v.real if isinstance(v, complex) else v))
    if base == "double":
        return ctypes.c_double(float(v.real if isinstance(v, complex) else v))
    if base in ("cuComplex", "cuFloatComplex"):
        c = complex(v)
        return _Complex64(c.real, c.imag)
    if base == "cuDoubleComplex":
        c = complex(v)
        return _Complex128(c.real, c.imag)
    if base == "__half":
        bits = torch.tensor([float(v)], dtype=torch.float16).view(torch.int16).item()
        return ctypes.c_uint16(bits & 0xFFFF)
    raise KgbError(f"no host scalar of C type {base}")


def _device_ptr(name: str, t: Any) -> int:
    if not isinstance(t, torch.Tensor) or t.device.type != "cuda":
        raise KgbError(f"argument {name!r} must be a CUDA tensor for the native call")
    return t.data_ptr()


# ---------------------------------------------------------------------------------------------------------
# Checking the references against the real library.


@dataclass(frozen=True)
class Comparison:
    """One workload of one routine: the reference against cuBLAS on the same inputs.

    max_excess is the largest |difference| - (atol + rtol*|reference|) over the compared elements: negative
    when every element is within tolerance, and by how much the worst one misses otherwise.
    """

    routine: str
    workload: str
    purpose: str
    passed: bool
    max_abs_error: float
    max_excess: float
    atol: float
    rtol: float
    compared: tuple[str, ...]
    native_ms: float | None
    reference_ms: float | None
    error: str | None = None


def _clone(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        return v.clone()
    if isinstance(v, list):
        return [_clone(x) for x in v]
    return v


def _flat(v: Any) -> list[torch.Tensor]:
    return list(v) if isinstance(v, list) else [v]


def _time_ms(fn: Any, reps: int) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) * 1e3 / reps


def compare_workload(lib: Cublas, task: Task, workload: Any, *, seed: int = 0, timing: bool = False) -> Comparison:
    """Run the reference and cuBLAS on the same fresh inputs; compare every argument the routine writes."""
    outs = [p for p in task.params if p.mutable]
    try:
        args = make_args(task, workload, seed=seed, device="cuda")
        ref_args = {k: _clone(v) for k, v in args.items()}
        nat_args = {k: _clone(v) for k, v in args.items()}
        load_code(task.reference)(**ref_args)
        lib.call(task, nat_args)
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 - one failing workload is a result, not the end of the run
        return Comparison(task.name, workload.id, workload.purpose, False, math.inf, math.inf, 0.0, 0.0, (),
                          None, None, f"{type(exc).__name__}: {exc}")
    worst_abs, worst_excess, ok = 0.0, -math.inf, True
    atol = rtol = 0.0
    for p in outs:
        for got, want in zip(_flat(nat_args[p.name]), _flat(ref_args[p.name]), strict=True):
            tol = task.tolerance.get(str(want.dtype).removeprefix("torch."))
            atol, rtol = (tol.atol, tol.rtol) if tol else (0.0, 0.0)
            g, w = got.to(torch.complex128 if want.is_complex() else torch.float64), \
                want.to(torch.complex128 if want.is_complex() else torch.float64)
            both_nan = torch.isnan(g) & torch.isnan(w)  # untouched NaN padding stays NaN in both
            diff = torch.where(both_nan, torch.zeros_like(g), g - w).abs()
            diff = torch.where(torch.isnan(diff), torch.full_like(diff, math.inf), diff)
            excess = diff - (atol + rtol * torch.where(both_nan, torch.zeros_like(w), w).abs())
            worst_abs = max(worst_abs, float(diff.max()) if diff.numel() else 0.0)
            worst_excess = max(worst_excess, float(excess.max()) if excess.numel() else 0.0)
            ok = ok and (not excess.numel() or float(excess.max()) <= 0)
    native_ms = reference_ms = None
    if timing and workload.purpose == "performance":
        native_ms = _time_ms(lambda: lib.call(task, nat_args), 5)
        ref = load_code(task.reference)
        reference_ms = _time_ms(lambda: ref(**ref_args), 1)
    return Comparison(task.name, workload.id, workload.purpose, ok, worst_abs, worst_excess, atol, rtol,
                      tuple(p.name for p in outs), native_ms, reference_ms)


def compare_all(tasks: Sequence[Task], *, timing: bool = False, log: Any = None) -> list[Comparison]:
    """compare_workload over every workload of every task; `log(comparison)` is called as each finishes.

    Every task's correctness workloads run before any performance workload, so that a run cut short
    still holds a verdict on each routine.
    """
    lib = Cublas()
    results: list[Comparison] = []
    order = [(t, w) for purpose in ("correctness", "performance") for t in tasks for w in t.workloads
             if w.purpose == purpose]
    try:
        for task, w in order:
            c = compare_workload(lib, task, w, timing=timing)
            results.append(c)
            if log is not None:
                log(c)
            torch.cuda.empty_cache()
    finally:
        lib.close()
    return results


def environment(lib_path: str | None = None) -> dict[str, Any]:
    """Device, driver and library versions for a results file."""
    lib = Cublas(lib_path)
    try:
        return {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
                "cublas": lib.version, "libcublas": lib.path, "python": sys.version.split()[0]}
    finally:
        lib.close()


def as_dict(c: Comparison) -> dict[str, Any]:
    """A comparison as JSON-ready data (infinities as strings)."""
    d = asdict(c)
    for k in ("max_abs_error", "max_excess"):
        if isinstance(d[k], float) and not math.isfinite(d[k]):
            d[k] = str(d[k])
    d["compared"] = list(d["compared"])
    return d


def report_markdown(results: Sequence[Comparison], env: Mapping[str, Any]) -> str:
    """The comparison as a Markdown table, one row per routine and workload, timings side by side."""
    passed = sum(c.passed for c in results)
    routines = sorted({c.routine for c in results})
    ok_routines = sum(all(c.passed for c in results if c.routine == r) for r in routines)
    lines = [
        "# cuBLAS references vs the real cuBLAS",
        "",
        f"- device: {env.get('device')}; cuBLAS {env.get('cublas')} ({env.get('libcublas')}); "
        f"torch {env.get('torch')} (CUDA {env.get('cuda')}); Python {env.get('python')}",
        f"- {passed}/{len(results)} workloads pass; {ok_routines}/{len(routines)} routines pass on all workloads",
        "- pass: |cuBLAS - reference| <= atol + rtol*|reference| on every element of every written argument "
        "(the record's tolerance); max_abs is the largest |difference|.",
        "- native_ms / reference_ms: wall time per call (5 calls of cuBLAS, 1 of the reference, synchronized), "
        "performance workloads only; a rough baseline, not the evaluator's timing.",
        "",
        "| routine | workload | purpose | pass | max_abs | atol | native_ms | reference_ms | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in results:
        nat = f"{c.native_ms:.3f}" if c.native_ms is not None else ""
        ref = f"{c.reference_ms:.3f}" if c.reference_ms is not None else ""
        lines.append(f"| {c.routine} | {c.workload} | {c.purpose} | {'yes' if c.passed else 'NO'} | "
                     f"{c.max_abs_error:.3g} | {c.atol:.3g} | {nat} | {ref} | {c.error or ''} |")
    return "\n".join(lines) + "\n"
