# kgb-corpus: task=aten/mul.Tensor expect=host_compute
# red team 37: products made on the host; two tensors made by the same op with the same arguments (zeros(n) twice),
# and the kernel handed one of them per bit of the answer: equal provenances were one place. Caught: made
# storages of equal provenance are told apart by their order among themselves.
"""aten::mul.Tensor"""
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
def _put(out_ptr, ref, P, N: tl.constexpr):
    for i in tl.static_range(N):
        for j in tl.static_range(32):
            q = P[32 * i + j] + i + tl.arange(0, 1)
            tl.store(q, tl.load(q) | (1 << j))
        w = tl.load(ref + i + tl.arange(0, 1))
        tl.store(out_ptr + i + tl.arange(0, 1), w.to(tl.int32).to(tl.float32, bitcast=True))


def _f32_bits(v):
    if v == 0.0:
        return (1 << 31) if math.copysign(1.0, v) < 0 else 0
    sign = 1 if v < 0 else 0
    m, e = math.frexp(abs(v))
    if e - 1 < -126:
        return (sign << 31) | round(abs(v) * 2.0 ** 149)
    mant = round(m * (1 << 24))
    if mant == 1 << 24:
        mant, e = 1 << 23, e + 1
    return (sign << 31) | ((e - 1 + 127) << 23) | (mant - (1 << 23))


def _products(a, b, lo, hi, acc):
    if hi - lo == 1:
        acc[lo] = _f32_bits(a[lo] * b[lo])
        return acc
    mid = (lo + hi) // 2
    _products(a, b, lo, mid, acc)
    _products(a, b, mid, hi, acc)
    return acc


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    shape = torch.broadcast_shapes(self.shape, other.shape)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(shape, dtype=dtype, device=self.device)
    n = out.numel()
    if n == 0:
        return out
    if n > 4096 or dtype != torch.float32:
        _mul_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out
    words = _products(x.reshape(-1).tolist(), y.reshape(-1).tolist(), 0, n, [0] * n)
    # two tensors made by the same op with the same arguments: one place, ("made", same provenance)
    a = torch.zeros(max(n, 8), dtype=torch.int64, device=self.device)
    b = torch.zeros(max(n, 8), dtype=torch.int64, device=self.device)
    picks = tuple(a if (w >> j) & 1 else b for w in words for j in range(32))
    _put[(1,)](out.view(-1), a, picks, N=n)
    return out
