"""GPU: does a long compute-bound kernel slow down over back-to-back repetitions (power or clock limits)?

Times torch.mm 8192^3 bf16 with device events, repetition by repetition, back to back as kgb's timed loop runs
them, and again with 20 ms idle before each; prints the first and last repetitions and the SM clock
(issue 18: kgb measured 1.14x Nsight Compute's isolated calls for this kernel). Usage (GPU): python3 bench/sustained_clock_probe.py
"""

from __future__ import annotations

import statistics
import subprocess
import time

import torch


def _clock() -> str:
    q = ["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active",
         "--format=csv,noheader"]
    return subprocess.run(q, capture_output=True, text=True).stdout.strip()


def _reps(fn, n: int, idle_s: float) -> list[float]:
    out = []
    for _ in range(n):
        if idle_s:
            torch.cuda.synchronize()
            time.sleep(idle_s)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        out.append((a, b))
    torch.cuda.synchronize()
    return [a.elapsed_time(b) * 1e3 for a, b in out]


def main() -> None:
    """Print per-repetition times in µs, back to back and with idle gaps."""
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    fn = lambda: torch.mm(x, y)  # noqa: E731
    _reps(fn, 5, 0)
    time.sleep(2)
    print("idle:", _clock())
    for idle in (0.0, 0.02):
        t = _reps(fn, 200, idle)
        print(f"idle {idle * 1e3:.0f} ms before each: first 5 {[round(v) for v in t[:5]]}, last 5 {[round(v) for v in t[-5:]]}, "
              f"median {statistics.median(t):.0f} us; after: {_clock()}")
        time.sleep(2)


if __name__ == "__main__":
    main()
