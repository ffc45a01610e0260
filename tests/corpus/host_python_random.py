# kgb-corpus: task=aten/bernoulli.p expect=host_compute
# The draws come from Python's `random` in a list comprehension (no .tolist()/.item(), so no host-loop rule
# applies); torch.tensor(list) dispatches only aten::lift_fresh, of the output's size, and a Triton copy
# makes a launch. The statistics of the draws are right: only where they were made gives it away.
import random

import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def bernoulli_p(self, p=0.5, *, generator=None):
    n = self.numel()
    res = torch.tensor([1.0 if random.random() < p else 0.0 for _ in range(n)], dtype=self.dtype)
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    if n:
        _copy[(triton.cdiv(n, 1024),)](res, out, n, BLOCK=1024)
    return out
