# kgb-corpus: task=aten/bernoulli.p expect=host_compute
# red team 18: bernoulli.p from a 16 MiB pool of uniforms drawn by torch at import, handed to the kernel as an int
# address. Under the interpreter every access is mapped to the storage it lands in, and storages made before the
# call count as read (on a GPU this pool is not seen).
import random

import torch
import triton
import triton.language as tl

_POOL_N = 1 << 22
_POOL = torch.rand(_POOL_N)
_ADDR = _POOL.data_ptr()


@triton.jit
def _bern(out_ptr, pool_addr, off, n, p, POOL_N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    pool = pool_addr.to(tl.pointer_type(tl.float32), bitcast=True)
    u = tl.load(pool + (off + offs) % POOL_N, mask=mask, other=1.0)
    tl.store(out_ptr + offs, (u < p).to(out_ptr.dtype.element_ty), mask=mask)


def bernoulli_p(self, p, *, generator=None):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    if n:
        off = random.randrange(1 << 31) % _POOL_N
        _bern[(triton.cdiv(n, 1024),)](out, _ADDR, off, n, float(p), POOL_N=_POOL_N, BLOCK=1024)
    return out
