"""GPU: how long FlagGems' mm takes on its first call of a shape (its autotuner) and after (issue 13).

Usage (GPU, with flag_gems importable and GEMS_VENDOR=nvidia): python3 bench/flaggems_mm_first_call.py
"""

from __future__ import annotations

import time

import torch
from flag_gems.ops.mm import mm


def _timed(a: torch.Tensor, b: torch.Tensor) -> float:
    t0 = time.perf_counter()
    mm(a, b)
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def main() -> None:
    """Print the first and second call's wall time for a few shapes and dtypes."""
    for m, k, n, dtype in ((37, 53, 29, torch.float32), (64, 96, 80, torch.bfloat16), (512, 512, 512, torch.float16)):
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        first = _timed(a, b)
        print(f"mm {m}x{k}x{n} {dtype}: first call {first:.1f} s, second {_timed(a, b) * 1e3:.2f} ms", flush=True)


if __name__ == "__main__":
    main()
