"""CPU: what the write ledger's whole-storage digests cost beside the interpreted launch they guard.

    python bench/ledger_cost.py [--sizes-mib 0.0625 1 16 128]

For each size, two CPU tensors of that size (an input and an output), as one honest call has them: the time of
one interpreted Triton copy between them (TRITON_INTERPRET=1), and of what the ledger does around a launch
(`check_all` before it, `refresh` after it: every live storage digested twice, whole), side by side, with their
ratio. The sampled digest the ledger used before (256 pages of storages over 1 MiB) is timed too, for the
record; it left a one-page host write unseen (tests/corpus/rt10_ledger_unsampled_page.py). Last, the same launch
with the worker's memory checks installed and armed (sandbox/launch_memory.py: every access checked, the
storages shadowed, copied at the start and compared at the end), beside the plain launch measured first.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import time

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported: the CPU path the ledger guards

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from kernelgenbench.sandbox.launch_memory import LaunchMemory  # noqa: E402
from kernelgenbench.sandbox.ledger import WriteLedger, _view  # noqa: E402


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


def _median_s(fn, repeats: int) -> float:
    """Median wall time of `fn` over `repeats` calls, after one warm-up."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _sampled_sweep(tensors: list[torch.Tensor]) -> None:
    """The former digest: storages over 1 MiB on their first and last page and 256 keyed pages."""
    for t in tensors:
        nbytes, ptr = t.untyped_storage().nbytes(), t.data_ptr()
        h = hashlib.blake2b(key=b"k" * 32, digest_size=16)
        if nbytes <= 1 << 20:
            h.update(_view(ptr, nbytes))
        else:
            last = (nbytes - 1) // 4096
            for page in (0, *sorted(random.Random(nbytes).sample(range(1, last), min(256, last - 1))), last):
                h.update(_view(ptr + page * 4096, min(4096, nbytes - page * 4096)))
        h.digest()


def main() -> None:
    """Print, per size, the launch's time, the ledger's and their ratio."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes-mib", type=float, nargs="+", default=[1 / 16, 1, 16, 128])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"torch {torch.__version__}, triton {triton.__version__}, {os.cpu_count()} CPUs; times are medians")
    print(f"{'size':>10} {'launch':>10} {'ledger (whole)':>15} {'ratio':>7} {'former (sampled)':>17} "
          f"{'checked launch':>15} {'ratio':>7}")
    rows = [(mib, *_one_size(int(mib * (1 << 20)) // 4, args.repeats)) for mib in args.sizes_mib]
    memory = LaunchMemory(WriteLedger())
    memory.install()  # triton's builder changes for the rest of this process: the checked launches go last
    for mib, launch, sweep, former in rows:
        checked = _checked_launch(memory, int(mib * (1 << 20)) // 4, args.repeats)
        print(f"{mib:>7.3g} MiB {launch * 1e3:>8.2f}ms {sweep * 1e3:>13.2f}ms {sweep / launch:>7.2f} "
              f"{former * 1e3:>15.2f}ms {checked * 1e3:>13.2f}ms {checked / launch:>7.2f}")


def _one_size(n: int, repeats: int) -> tuple[float, float, float]:
    """Seconds of one interpreted copy of `n` floats, of the ledger around it, and of the former sampled one."""
    src, dst = torch.randn(n), torch.empty(n)
    block = 1 << 16
    launch = _median_s(lambda: _copy[(triton.cdiv(n, block),)](src, dst, n, BLOCK=block), repeats)
    ledger = WriteLedger()
    ledger.record([src, dst])
    sweep = _median_s(lambda: (ledger.check_all(), ledger.refresh()), repeats)
    former = _median_s(lambda: (_sampled_sweep([src, dst]), _sampled_sweep([src, dst])), repeats)
    return launch, sweep, former


def _checked_launch(memory: LaunchMemory, n: int, repeats: int) -> float:
    """Seconds of the same copy with the memory checks armed around it, as the worker runs it."""
    src, dst = torch.randn(n), torch.empty(n)
    block = 1 << 16

    def run() -> None:
        memory.arm([src, dst])
        _copy[(triton.cdiv(n, block),)](src, dst, n, BLOCK=block)
        memory.disarm()
        assert memory.take()[2] == 0

    return _median_s(run, repeats)

if __name__ == "__main__":
    main()
