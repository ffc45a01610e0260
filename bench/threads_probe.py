"""GPU: which OS threads a library starts during its first call, and whether they work (issue 13).

Warms the runtime up as the worker does (sandbox/worker._warm_up), imports the library, then calls it: for each
thread not there before the call, its name, state, CPU time then and 0.2 s later, and the shared libraries
mapped during the call. Usage (GPU): python3 bench/threads_probe.py liger|flaggems
"""

from __future__ import annotations

import sys
import time


def _libraries() -> set[str]:
    with open("/proc/self/maps") as f:
        return {line.split()[-1] for line in f if ".so" in line}


def _call(which: str):
    import torch

    x = torch.randn(64, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
    if which == "liger":
        from liger_kernel.functional import rms_norm

        return lambda: rms_norm(x, w, 1e-6)
    from flag_gems.fused import rms_norm

    return lambda: rms_norm(x, [4096], w, 1e-6)


def main() -> None:
    """Print the threads and libraries a library's first call brings."""
    from kernelgenbench.sandbox.threads import cpu_and_state, describe, os_threads
    from kernelgenbench.sandbox.worker import _warm_up

    print("device", _warm_up())
    fn = _call(sys.argv[1] if len(sys.argv) > 1 else "liger")
    before, libs = os_threads(), _libraries()
    fn()
    import torch

    torch.cuda.synchronize()
    new = sorted(os_threads() - before)
    first = {t: (describe(t), *cpu_and_state(t)) for t in new}
    time.sleep(0.2)
    print(f"{len(new)} new thread(s) after the first call")
    for t in new:
        name, cpu, state = first[t]
        cpu2, state2 = cpu_and_state(t)
        print(f"  {name} state {state}->{state2} cpu {cpu:.3f}->{cpu2:.3f} s")
    print("libraries mapped during the call:", *sorted(_libraries() - libs), sep="\n  ")
    fn()
    torch.cuda.synchronize()
    print("threads new after a second call:", sorted(os_threads() - before - set(new)))


if __name__ == "__main__":
    main()
