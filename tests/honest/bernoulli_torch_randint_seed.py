# kgb-honest: task=aten/bernoulli.p
"""bernoulli.p with the Philox seed drawn from torch's own generator (so torch.manual_seed reproduces it)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _bernoulli_kernel(out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.rand(seed, offs)
    tl.store(out_ptr + offs, (u < p).to(out_ptr.dtype.element_ty), mask=mask)


def bernoulli_p(self, p, *, generator=None):
    out = torch.empty_like(self, memory_format=torch.contiguous_format)
    n = out.numel()
    if n == 0:
        return out
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=generator).item())
    _bernoulli_kernel[(triton.cdiv(n, 1024),)](out, n, float(p), seed, BLOCK=1024)
    return out
