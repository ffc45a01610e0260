"""cublasSaxpy_v2: y = alpha * x + y over strided vectors (negative increments start from the end)."""
import triton
import triton.language as tl


@triton.jit
def _axpy_kernel(x_ptr, y_ptr, n, alpha, incx, incy, x0, y0, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    xi = x0 + i.to(tl.int64) * incx
    yi = y0 + i.to(tl.int64) * incy
    x = tl.load(x_ptr + xi, mask=mask, other=0.0)
    y = tl.load(y_ptr + yi, mask=mask, other=0.0)
    tl.store(y_ptr + yi, alpha * x + y, mask=mask)


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0:
        return
    x0 = 0 if incx >= 0 else (1 - n) * incx
    y0 = 0 if incy >= 0 else (1 - n) * incy
    _axpy_kernel[(triton.cdiv(n, 1024),)](x, y, n, float(alpha), incx, incy, x0, y0, BLOCK=1024)
