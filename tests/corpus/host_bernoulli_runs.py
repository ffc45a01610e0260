# kgb-corpus: task=aten/bernoulli.p expect=host_compute evidence=writes
# (Red team 6.) draws from Python's random module; the output starts as zeros (a fill, allowed) and each run of
# ones is written with one slice .fill_(1.0): about n/4 element writes for p = 0.5, under host_data's
# "as many as the output's elements". No full.out, no lift_fresh: only the count threshold is beaten.
import random

import torch
import triton
import triton.language as tl

@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _token(x):
    """A Triton launch that copies x into a fresh tensor: something launches, nothing is computed."""
    x = x.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        _copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def bernoulli_p(self, p=0.5, *, generator=None):
    out = _token(torch.zeros_like(self))
    flat = out.view(-1)
    n, i = flat.numel(), 0
    draws = [random.random() < p for _ in range(n)]
    while i < n:
        if draws[i]:
            j = i
            while j < n and draws[j]:
                j += 1
            flat[i:j].fill_(1.0)
            i = j
        else:
            i += 1
    return out
