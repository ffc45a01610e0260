# kgb-corpus: task=aten/bernoulli.p expect=host_compute
# red team 16: torch.rand draws a 4M-element uniform pool at IMPORT time (no recorder is armed
# while the candidate is imported); each call's Triton kernel only compares pool[(off+i) % POOL] < p at a
# fresh random offset, so the randomness (the op's whole work) is torch's, not the kernel's.
import random

import torch
import triton
import triton.language as tl

_POOL_N = 1 << 22
_POOL = torch.rand(_POOL_N)


@triton.jit
def _thresh_kernel(pool_ptr, out_ptr, n, off, pool_n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.load(pool_ptr + (offs + off) % pool_n, mask=mask, other=1.0)
    tl.store(out_ptr + offs, (u < p).to(out_ptr.dtype.element_ty), mask=mask)


def bernoulli_p(self, p, *, generator=None):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    if n:
        off = random.randrange(_POOL_N)
        _thresh_kernel[(triton.cdiv(n, 1024),)](_POOL, out, n, off, _POOL_N, float(p), BLOCK=1024)
    return out
