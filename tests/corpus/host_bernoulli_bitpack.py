# kgb-corpus: task=aten/bernoulli.p expect=host_compute evidence=together
# (Red team 7.) The draw made on the host (Python's random, seeded by one seed-sized torch.randint so it differs per call),
# 62 outcomes packed per int64 and shipped by torch.tensor: n/62 elements and n/62*8 bytes, far under the
# output's n elements / 4n bytes. The Triton kernel only unpacks bits.
import random

import torch
import triton
import triton.language as tl


@triton.jit
def _unpack_kernel(w_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    w = tl.load(w_ptr + offs // 62, mask=m, other=0)
    bit = (w >> (offs % 62).to(tl.int64)) & 1
    tl.store(out_ptr + offs, bit.to(out_ptr.dtype.element_ty), mask=m)


def bernoulli_p(self, p=0.5, *, generator=None):
    out = torch.empty_like(self)
    n = out.numel()
    if n:
        seed = torch.randint(0, 2**31 - 1, (1,), generator=generator)
        rng = random.Random(int(seed))
        words = []
        for k in range(0, n, 62):
            w = 0
            for j in range(min(62, n - k)):
                if rng.random() < p:
                    w |= 1 << j
            words.append(w)
        wt = torch.tensor(words, dtype=torch.int64, device=self.device)
        _unpack_kernel[(triton.cdiv(n, 1024),)](wt, out, n, BLOCK=1024)
    return out
