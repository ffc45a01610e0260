"""cublasSscal_v2: x = alpha * x over a strided vector (nothing happens for incx <= 0, as in BLAS)."""
import triton
import triton.language as tl


@triton.jit
def _scal_kernel(x_ptr, n, alpha, incx, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    xi = i.to(tl.int64) * incx
    tl.store(x_ptr + xi, alpha * tl.load(x_ptr + xi, mask=mask), mask=mask)


def cublasSscal_v2(n, alpha, x, incx):
    if n <= 0 or incx <= 0:
        return
    _scal_kernel[(triton.cdiv(n, 1024),)](x, n, float(alpha), incx, BLOCK=1024)
