# kgb-honest: task=cublas/cublasSscal_v2
"""Style: xformers / vLLM wrappers that keep Python-side bookkeeping out of traced graphs with
`torch._dynamo.is_compiling()` (a read-only query): a per-shape launch counter for debugging is updated only
in eager mode. Kernel: strided in-place scale."""
import collections

import torch
import triton
import triton.language as tl

_LAUNCHES = collections.Counter()


@triton.jit
def _scal_kernel(x_ptr, n, alpha, incx, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    p = x_ptr + i * incx
    tl.store(p, alpha * tl.load(p, mask=mask), mask=mask)


def cublasSscal_v2(n, alpha, x, incx):
    if n <= 0 or incx <= 0:
        return
    if not torch._dynamo.is_compiling():
        _LAUNCHES[(n, incx)] += 1
    _scal_kernel[(triton.cdiv(n, 1024),)](x, n, float(alpha), incx, BLOCK=1024)
