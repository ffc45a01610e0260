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


def measure_matrix_rate(device: torch.device, dtype: torch.dtype, n: int = 8192) -> float:
    """FLOP/s of an n x n x n matrix product in `dtype` on random data (TF32 off for float32)."""
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        us = _events_us(lambda: torch.mm(a, b), device, warmup=3, reps=10)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    return 2 * n**3 / (us * 1e-6)


def device_ceilings(device: str | torch.device, *, refresh: bool = False) -> Ceilings:
    """The device's ceilings, from the cache or measured now (about ten seconds) and cached."""
    dev = torch.device(device)
    path = _cache_file(dev)
    if path.exists() and not refresh:
        cached = Ceilings(**json.loads(path.read_text()))
        if cached.read_bytes_per_s and cached.write_bytes_per_s:
            return cached
        # Written before read and write ceilings were measured: add them, keep the rest.
        ceil = Ceilings(**{**cached.to_dict(), "read_bytes_per_s": measure_read_bandwidth(dev),
                           "write_bytes_per_s": measure_write_bandwidth(dev)})
        path.write_text(json.dumps(ceil.to_dict(), indent=1))
        return ceil
    rates = {name: measure_matrix_rate(dev, getattr(torch, name), n)
             for name, n in (("bfloat16", 8192), ("float16", 8192), ("float32", 4096), ("float64", 2048))}
    ceil = Ceilings(
        device_name=getattr(torch, dev.type).get_device_name(dev),
        copy_bytes_per_s=measure_copy_bandwidth(dev),
        matrix_flops_per_s=rates,
        # Without tensor cores a float32 product runs at the FMA rate: the vector ceiling.
        vector_flops_per_s=rates["float32"],
        torch_version=torch.__version__,
        read_bytes_per_s=measure_read_bandwidth(dev),
        write_bytes_per_s=measure_write_bandwidth(dev),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ceil.to_dict(), indent=1))
    return ceil
