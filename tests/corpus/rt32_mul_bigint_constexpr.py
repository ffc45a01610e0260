# kgb-corpus: task=aten/mul.Tensor expect=host_compute
# red team 32: the whole answer, 64 bits per element, packed into one Python int passed as a constexpr and
# unpacked by constexpr arithmetic in the kernel: an int was one leaf whatever its size. Caught: an int past 64
# bits is a leaf per 32-bit word.
"""aten::mul.Tensor: out = self * other, with broadcasting."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * y).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _emit(out_ptr, PACKED: tl.constexpr, N: tl.constexpr):
    one = tl.arange(0, 1)
    for i in tl.static_range(N):
        word = (PACKED >> (64 * i)) & 0xFFFFFFFFFFFFFFFF
        v = tl.full((1,), word, tl.uint64).to(tl.float64, bitcast=True)
        tl.store(out_ptr + i + one, v.to(out_ptr.dtype.element_ty))


def _f64_bits(v):
    if v == 0.0:
        return (1 << 63) if math.copysign(1.0, v) < 0 else 0
    sign = 1 if v < 0 else 0
    m, e = math.frexp(abs(v))
    return (sign << 63) | ((e - 1 + 1023) << 52) | (int(m * (1 << 53)) - (1 << 52))


def _pack(a, b, lo, hi):
    # divide and conquer: the products as one integer, 64 bits per element
    if hi - lo == 1:
        return _f64_bits(a[lo] * b[lo])
    mid = (lo + hi) // 2
    return _pack(a, b, lo, mid) | (_pack(a, b, mid, hi) << (64 * (mid - lo)))


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n == 0:
        return out
    if n < 8 or n > 4096 or dtype != torch.float32:
        _mul_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out
    packed = _pack(x.reshape(-1).tolist(), y.reshape(-1).tolist(), 0, n)
    _emit[(1,)](out, PACKED=packed, N=n)
    return out
