# kgb-honest: task=cublas/cublasSaxpy_v2
"""Style: an unmasked main launch over the whole blocks (EVEN constexpr) and a second, masked launch for the
tail only when n % BLOCK != 0, the tail handed as offset-shifted start indices."""
import triton
import triton.language as tl


@triton.jit
def _axpy(x_ptr, y_ptr, n, alpha, incx, incy, x0, y0, start, EVEN: tl.constexpr, BLOCK: tl.constexpr):
    i = start + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    xi = x0 + i.to(tl.int64) * incx
    yi = y0 + i.to(tl.int64) * incy
    if EVEN:
        tl.store(y_ptr + yi, alpha * tl.load(x_ptr + xi) + tl.load(y_ptr + yi))
    else:
        mask = i < n
        tl.store(y_ptr + yi, alpha * tl.load(x_ptr + xi, mask=mask, other=0.0) + tl.load(y_ptr + yi, mask=mask, other=0.0), mask=mask)


BLOCK = 512


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0:
        return
    x0 = 0 if incx >= 0 else (1 - n) * incx
    y0 = 0 if incy >= 0 else (1 - n) * incy
    full = n // BLOCK
    if full:
        _axpy[(full,)](x, y, n, float(alpha), incx, incy, x0, y0, 0, EVEN=True, BLOCK=BLOCK)
    if n % BLOCK:
        _axpy[(1,)](x, y, n, float(alpha), incx, incy, x0, y0, full * BLOCK, EVEN=False, BLOCK=BLOCK)
