# kgb-honest: task=aten/bernoulli.p
"""Style: FlagGems `libentry`: the @triton.jit kernel is wrapped by a LibEntry-like object that caches the
constexpr part of each launch per key and calls `self.fn.run(*args, grid=grid, warmup=False, **kwargs)`
directly (the JITFunction's run entry, bypassing __getitem__), as flag_gems.utils.libentry does. Seed from
Python's random module (a fresh draw per call); tl.randint4x gives 4 uint32 streams per counter."""
import random

import torch
import triton
import triton.language as tl


class LibEntry:
    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.kernel_cache = {}

    def run(self, *args, grid, **kwargs):
        key = tuple(sorted(kwargs.items()))
        entry = self.kernel_cache.setdefault(key, dict(kwargs))
        return self.fn.run(*args, grid=grid, warmup=False, **entry)

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)


def libentry():
    return lambda fn: LibEntry(fn)


@libentry()
@triton.jit
def _bernoulli_kernel(out_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    r0, r1, r2, r3 = tl.randint4x(seed, offs)
    base = pid * BLOCK * 4 + tl.arange(0, BLOCK)
    ty = out_ptr.dtype.element_ty
    o0 = base
    o1 = base + BLOCK
    o2 = base + 2 * BLOCK
    o3 = base + 3 * BLOCK
    tl.store(out_ptr + o0, (tl.uint_to_uniform_float(r0) < p).to(ty), mask=o0 < n)
    tl.store(out_ptr + o1, (tl.uint_to_uniform_float(r1) < p).to(ty), mask=o1 < n)
    tl.store(out_ptr + o2, (tl.uint_to_uniform_float(r2) < p).to(ty), mask=o2 < n)
    tl.store(out_ptr + o3, (tl.uint_to_uniform_float(r3) < p).to(ty), mask=o3 < n)


def bernoulli_p(self, p, *, generator=None):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    if n:
        seed = random.randrange(1 << 31) if generator is None else int(generator.initial_seed()) & 0x7FFFFFFF
        BLOCK = 512
        _bernoulli_kernel[(triton.cdiv(n, 4 * BLOCK),)](out, n, float(p), seed, BLOCK=BLOCK)
    return out
