# kgb-honest: task=cublas/cublasSscal_v2
"""Style: kernel launched through a cached callable: `_launcher(n, incx)` is functools.lru_cache'd on the shape
key and returns a functools.partial of the kernel already indexed with its grid and bound to its constexprs
(as wrappers that precompute grids per shape do); the kernel itself uses a tl.where-selected value instead of
a masked load."""
import functools

import triton
import triton.language as tl


@triton.jit
def _scal(x_ptr, n, alpha, incx, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    p = x_ptr + tl.where(m, i, 0).to(tl.int64) * incx
    v = tl.load(p)
    tl.store(p, alpha * v, mask=m)


@functools.lru_cache(maxsize=64)
def _launcher(n, incx):
    block = 1024 if n >= 1024 else triton.next_power_of_2(n)
    return functools.partial(_scal[(triton.cdiv(n, block),)], BLOCK=block)


def cublasSscal_v2(n, alpha, x, incx):
    if n <= 0 or incx <= 0:
        return
    _launcher(n, incx)(x, n, float(alpha), incx)
