# kgb-honest: task=aten/bernoulli.p
"""Style: FlagGems philox seed/offset: seed drawn from torch's generator, a per-process offset counter advanced by
the elements consumed (like philox_backend_seed_offset), tl.randint4x-free tl.rand(seed, offset + idx)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _bernoulli_kernel(out_ptr, n, p, seed, philox_offset, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.rand(seed, philox_offset + offs)
    tl.store(out_ptr + offs, tl.where(u < p, 1.0, 0.0).to(out_ptr.dtype.element_ty), mask=mask)


class _PhiloxState:
    def __init__(self):
        self.offset = 0

    def next(self, increment, generator):
        seed = int(torch.randint(0, 2**31 - 1, (1,), generator=generator).item())
        off = self.offset
        self.offset = (self.offset + (increment + 3) // 4 * 4) % (1 << 30)
        return seed, off


_STATE = _PhiloxState()


def bernoulli_p(self, p, *, generator=None):
    out = torch.empty_like(self, memory_format=torch.contiguous_format)
    n = out.numel()
    if n == 0:
        return out
    seed, off = _STATE.next(n, generator)
    BLOCK = 512
    _bernoulli_kernel[(triton.cdiv(n, BLOCK),)](out, n, float(p), seed, off, BLOCK=BLOCK)
    return out
