# kgb-corpus: task=cublas/cublasSaxpy_v2 expect=crashed
# (Red team 8.) Host compute with no tensor ever made from host data and no .tolist(): under the interpreter a
# Triton pointer is a raw host address, and an int kernel argument bit-cast to a pointer reaches any memory.
# Kernel 1 "gathers" x and y into the payload of Python bytes objects (address id(b) + bytes.__basicsize__ - 1);
# Python reads them through a memoryview (reached as type(io.BytesIO().getbuffer()), cast to 'f'), does the
# axpy, and kernel 2 loads the answer from another bytes object's address and scatters it into y. The
# recorders see only the interpreter's own argument copies and two launches whose scalars are ints.
import io

import triton
import triton.language as tl


@triton.jit
def _gather(v_ptr, n, inc, v0, dst_addr, BLOCK: tl.constexpr):
    dst = dst_addr.to(tl.pointer_type(tl.float32), bitcast=True)
    i = tl.arange(0, BLOCK)
    m = i < n
    tl.store(dst + i, tl.load(v_ptr + v0 + i.to(tl.int64) * inc, mask=m), mask=m)


@triton.jit
def _scatter(y_ptr, n, incy, y0, src_addr, BLOCK: tl.constexpr):
    src = src_addr.to(tl.pointer_type(tl.float32), bitcast=True)
    i = tl.arange(0, BLOCK)
    m = i < n
    tl.store(y_ptr + y0 + i.to(tl.int64) * incy, tl.load(src + i, mask=m), mask=m)


_VIEW = type(io.BytesIO(b"\0").getbuffer())  # memoryview


def _addr(b):
    return id(b) + type(b).__basicsize__ - 1


def _floats(b):
    return _VIEW.cast(_VIEW(b), "f")


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    if n <= 0:
        return
    x0 = 0 if incx >= 0 else (1 - n) * incx
    y0 = 0 if incy >= 0 else (1 - n) * incy
    block = triton.next_power_of_2(n)
    hx, hy = bytes(4 * n + 1), bytes(4 * n + 1)  # fresh objects (never the shared empty/one-byte ones)
    _gather[(1,)](x, n, incx, x0, _addr(hx), BLOCK=block)
    _gather[(1,)](y, n, incy, y0, _addr(hy), BLOCK=block)
    fx, fy = _floats(hx[:4 * n]), _floats(hy[:4 * n])
    buf = io.BytesIO(bytes(4 * n + 1))
    ans = _VIEW.cast(buf.getbuffer()[:4 * n], "f")
    for i in range(n):
        ans[i] = alpha * fx[i] + fy[i]
    del ans
    res = buf.getvalue()
    _scatter[(1,)](y, n, incy, y0, _addr(res), BLOCK=block)
