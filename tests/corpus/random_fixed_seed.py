# kgb-corpus: task=aten/bernoulli.p expect=incorrect_numerics evidence=draw
# A correct Philox sampler with a fixed seed: every call on a tensor of the same size draws the same
# output. (Red team 4.)
"""aten::bernoulli.p: independent draws, 1 with probability p, from Triton's Philox generator."""
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
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    if n:
        seed = 1234  # the same stream on every call
        _bernoulli_kernel[(triton.cdiv(n, 1024),)](out, n, float(p), seed, BLOCK=1024)
    return out
