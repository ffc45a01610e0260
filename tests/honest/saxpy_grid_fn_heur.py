# kgb-honest: task=cublas/cublasSaxpy_v2
"""Style: @triton.heuristics computing Python bools (X_REVERSED / Y_REVERSED) from the increments, a named grid
function over META, a tuple constexpr global (TILE = tl.constexpr((128, 2))) unpacked in the kernel, a
@triton.jit helper, and a constexpr parameter default."""
import triton
import triton.language as tl

TILE = tl.constexpr((128, 2))


@triton.jit
def _axpy(a, x, y):
    return a * x + y


@triton.heuristics({"X_REVERSED": lambda args: args["incx"] < 0, "Y_REVERSED": lambda args: args["incy"] < 0})
@triton.jit
def _saxpy_kernel(x_ptr, y_ptr, n, alpha, incx, incy, X_REVERSED: tl.constexpr, Y_REVERSED: tl.constexpr,
                  CHECK_BOUNDS: tl.constexpr = True):
    BLOCK: tl.constexpr = TILE[0]
    PER_PROG: tl.constexpr = TILE[1]
    for j in tl.static_range(PER_PROG):
        i = (tl.program_id(0) * PER_PROG + j).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = i < n if CHECK_BOUNDS else i >= 0
        xi = (n - 1 - i) * (-incx) if X_REVERSED else i * incx
        yi = (n - 1 - i) * (-incy) if Y_REVERSED else i * incy
        x = tl.load(x_ptr + xi, mask=m, other=0.0)
        y = tl.load(y_ptr + yi, mask=m, other=0.0)
        tl.store(y_ptr + yi, _axpy(alpha, x, y), mask=m)


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0:
        return

    def grid(META):
        return (triton.cdiv(n, TILE.value[0] * TILE.value[1]),)

    _saxpy_kernel[grid](x, y, n, float(alpha), incx, incy)
