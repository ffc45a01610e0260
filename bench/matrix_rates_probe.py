"""GPU: the matrix rates device_ceilings measures, beside variants of the int8 and float8 products (issue 17).

Prints TFLOP/s per dtype as `device_ceilings` has them, then each low-precision product at n = 4096, 8192 and
16384 with its operands in both layouts, so a slow kernel choice (a layout cuBLASLt does not take on the fast
path, a size too small to fill the tensor cores) shows beside the bfloat16 rate it is compared with.
Usage (GPU): python3 bench/matrix_rates_probe.py
"""

from __future__ import annotations

import torch

from kernelgenbench.evaluator.ceilings import _events_us, device_ceilings


def _rate(fn, n: int, dev: torch.device) -> float:
    try:
        fn()
        return 2 * n**3 / (_events_us(fn, dev, warmup=3, reps=10) * 1e-6) / 1e12
    except (RuntimeError, ValueError) as exc:
        print("   ", type(exc).__name__, str(exc)[:120])
        return float("nan")


def _variants(n: int, dev: torch.device) -> dict[str, float]:
    a, b = torch.randn(n, n, device=dev), torch.randn(n, n, device=dev)
    one = torch.ones((), device=dev)
    bf_a, bf_b = a.bfloat16(), b.bfloat16()
    i8_a, i8_b = a.to(torch.int8), b.to(torch.int8)
    f8_a, f8_b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    # column-major second operands: cuBLASLt's layout for its fast int8/float8 path
    i8_bc, f8_bc = i8_b.t().contiguous().t(), f8_b.t().contiguous().t()
    return {
        "bf16 mm": _rate(lambda: torch.mm(bf_a, bf_b), n, dev),
        "int8 _int_mm row,row": _rate(lambda: torch._int_mm(i8_a, i8_b), n, dev),
        "int8 _int_mm row,col": _rate(lambda: torch._int_mm(i8_a, i8_bc), n, dev),
        "fp8 e4m3 _scaled_mm row,col": _rate(
            lambda: torch._scaled_mm(f8_a, f8_bc, one, one, out_dtype=torch.bfloat16), n, dev),
    }


def main() -> None:
    """Print the measured ceilings' matrix rates, then the variants."""
    dev = torch.device("cuda")
    print(torch.cuda.get_device_name(dev), torch.__version__)
    rates = device_ceilings(dev, refresh=True).matrix_flops_per_s
    print("device_ceilings:", {k: round(v / 1e12, 1) for k, v in sorted(rates.items())})
    for n in (4096, 8192, 16384):
        print(n, {k: round(v, 1) for k, v in _variants(n, dev).items()})


if __name__ == "__main__":
    main()
