"""The device's measured ceilings (copy, read and write bandwidth; matrix and vector rates), measured once and cached."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch


@dataclass(frozen=True)
class Ceilings:
    """Measured rates of one device: bytes/s of a large device copy, of a pure read and of a pure write,
    FLOP/s of large matrix products. A read or write rate of 0 means not measured (the copy rate stands in)."""

    device_name: str
    copy_bytes_per_s: float
    matrix_flops_per_s: dict[str, float]
    vector_flops_per_s: float
    torch_version: str
    read_bytes_per_s: float = 0.0
    write_bytes_per_s: float = 0.0

    def memory_floor_s(self, reads: float, writes: float) -> float:
        """Seconds to read `reads` and write `writes` bytes, a lower bound whatever the mix: each direction
        at its own measured peak, and all bytes at the best of the three measured rates (reads and writes
        share the memory bus, but how well a kernel interleaves them is its own; this never assumes worse
        than the best rate seen)."""
        r = self.read_bytes_per_s or self.copy_bytes_per_s
        w = self.write_bytes_per_s or self.copy_bytes_per_s
        best = max(r, w, self.copy_bytes_per_s)
        return max(reads / r, writes / w, (reads + writes) / best)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def cache_dir() -> Path:
    """Where kernelgenbench caches downloads and measurements ($KGB_CACHE_DIR or ~/.cache/kernelgenbench)."""
    return Path(os.environ.get("KGB_CACHE_DIR", Path.home() / ".cache" / "kernelgenbench"))


def _cache_file(device: torch.device) -> Path:
    mod = getattr(torch, device.type)
    name = mod.get_device_name(device).replace(" ", "_").replace("/", "_")
    return cache_dir() / "ceilings" / f"{name}-torch{torch.__version__}.json"


def _events_us(fn: Any, device: torch.device, warmup: int, reps: int) -> float:
    """Mean µs per call of `fn` over `reps` back-to-back calls between two events (no flush: large data)."""
    mod = getattr(torch, device.type)
    for _ in range(warmup):
        fn()
    mod.synchronize(device)
    start, end = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / reps


def measure_copy_bandwidth(device: torch.device, nbytes: int = 4 << 30) -> float:
    """Bytes read plus bytes written per second by the runtime's device-to-device copy of `nbytes`.

    Measured with plain events over back-to-back copies, independently of `time_callable`, so that the
    evaluator's own timings can be checked against it.
    """
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    us = _events_us(lambda: dst.copy_(src), device, warmup=3, reps=10)
    return 2 * nbytes / (us * 1e-6)


def measure_read_bandwidth(device: torch.device, nbytes: int = 4 << 30) -> float:
    """Bytes read per second by a full reduction of `nbytes` (its one-scalar write is nothing)."""
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).uniform_()
    best = min(_events_us(lambda: torch.sum(src), device, warmup=3, reps=10),
               _events_us(lambda: torch.amax(src), device, warmup=3, reps=10))
    return nbytes / (best * 1e-6)


def measure_write_bandwidth(device: torch.device, nbytes: int = 4 << 30) -> float:
    """Bytes written per second by filling `nbytes` with a constant (nothing read)."""
    dst = torch.empty(nbytes // 4, dtype=torch.float32, device=device)
    best = min(_events_us(lambda: dst.fill_(1.5), device, warmup=3, reps=10),
               _events_us(lambda: dst.zero_(), device, warmup=3, reps=10))
    return nbytes / (best * 1e-6)


def measure_matrix_rate(device: torch.device, dtype: torch.dtype, n: int = 8192, *, tf32: bool = False) -> float:
    """FLOP/s of an n x n x n matrix product in `dtype` on random data (TF32 only where asked, for float32)."""
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        us = _events_us(lambda: torch.mm(a, b), device, warmup=3, reps=10)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    return 2 * n**3 / (us * 1e-6)


def measure_low_precision_rate(device: torch.device, dtype: str, n: int = 8192) -> float | None:
    """FLOP/s of an n x n x n int8 (torch._int_mm) or float8 (torch._scaled_mm) product; None where the
    device or this torch has no such product."""
    try:
        a = torch.randn(n, n, device=device)
        b = torch.randn(n, n, device=device)
        if dtype == "int8":
            # the second operand column-major, as cuBLASLt's fast int8 path takes it: row-major runs a fallback
            # at 128 TFLOP/s on an H100, a sixth of bfloat16's, against 965 column-major
            a8, b8 = a.to(torch.int8), b.to(torch.int8).t().contiguous().t()
            fn = lambda: torch._int_mm(a8, b8)  # noqa: E731
        else:
            one = torch.ones((), device=device)
            # e5m2 x e5m2 has no kernel (torch refuses it); a product with e5m2 operands runs as e4m3 x e5m2
            a8 = a.to(torch.float8_e4m3fn if dtype == "float8_e5m2" else getattr(torch, dtype))
            b8 = b.to(getattr(torch, dtype)).t().contiguous().t()
            fn = lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=torch.bfloat16)  # noqa: E731
        fn()
        us = _events_us(fn, device, warmup=3, reps=10)
    except (RuntimeError, TypeError, AttributeError, ValueError):  # no such product on this device or torch
        return None
    return 2 * n**3 / (us * 1e-6)


# Matrix rates beyond the plain dtypes: float32 through TF32 (tl.dot's default for float32 operands),
# int8 and float8 tensor-core products. A floor must assume the fastest of them that its operands allow.
_EXTRA_RATES = ("tfloat32", "int8", "float8_e4m3fn", "float8_e5m2")


def measure_extra_rates(device: torch.device) -> dict[str, float]:
    """The `_EXTRA_RATES` this device and torch can run, in FLOP/s."""
    rates = {"tfloat32": measure_matrix_rate(device, torch.float32, 4096, tf32=True)}
    for name in _EXTRA_RATES[1:]:
        if (rate := measure_low_precision_rate(device, name)) is not None:
            rates[name] = rate
    return rates


def device_ceilings(device: str | torch.device, *, refresh: bool = False) -> Ceilings:
    """The device's ceilings, from the cache or measured now (about ten seconds) and cached."""
    dev = torch.device(device)
    path = _cache_file(dev)
    if path.exists() and not refresh:
        cached = Ceilings(**json.loads(path.read_text()))
        if cached.read_bytes_per_s and cached.write_bytes_per_s and "tfloat32" in cached.matrix_flops_per_s:
            return cached
        # Written before the read and write ceilings or the extra matrix rates were measured: add them.
        ceil = Ceilings(**{**cached.to_dict(),
                           "read_bytes_per_s": cached.read_bytes_per_s or measure_read_bandwidth(dev),
                           "write_bytes_per_s": cached.write_bytes_per_s or measure_write_bandwidth(dev),
                           "matrix_flops_per_s": {**measure_extra_rates(dev), **cached.matrix_flops_per_s}})
        path.write_text(json.dumps(ceil.to_dict(), indent=1))
        return ceil
    rates = {name: measure_matrix_rate(dev, getattr(torch, name), n)
             for name, n in (("bfloat16", 8192), ("float16", 8192), ("float32", 4096), ("float64", 2048))}
    ceil = Ceilings(
        device_name=getattr(torch, dev.type).get_device_name(dev),
        copy_bytes_per_s=measure_copy_bandwidth(dev),
        matrix_flops_per_s={**rates, **measure_extra_rates(dev)},
        # Without tensor cores a float32 product runs at the FMA rate: the vector ceiling.
        vector_flops_per_s=rates["float32"],
        torch_version=torch.__version__,
        read_bytes_per_s=measure_read_bandwidth(dev),
        write_bytes_per_s=measure_write_bandwidth(dev),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ceil.to_dict(), indent=1))
    return ceil
