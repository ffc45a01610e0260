# hostile on outputs under 8 elements after a first workload of 16 (an honest kernel at 16): run by tests/test_eval_host_data.py
# red team 38: the first call caches ones(8); each later tiny call hands per bit of the host's answer that kept storage
# or a fresh zeros(8): made<->kept was never counted. Caught: only a storage the previous round made and this one kept
# is let go.
"""aten::mul.Tensor"""
import math

import torch
import triton
import triton.language as tl

_CACHE = {}  # a workspace made in the first call: "kept" in every later one


@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * y).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _put(out_ptr, P, N: tl.constexpr):
    for i in tl.static_range(N):
        acc = tl.zeros((1,), dtype=tl.int64)
        for j in tl.static_range(32):
            acc = acc | (tl.load(P[32 * i + j] + tl.arange(0, 1)) << j)
        tl.store(out_ptr + i + tl.arange(0, 1), acc.to(tl.int32).to(tl.float32, bitcast=True))


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
    if "one" not in _CACHE:  # made by whichever call comes first: "kept" in every later call
        _CACHE["one"] = torch.ones(8, dtype=torch.int64)
    if n >= 8 or dtype != torch.float32:
        _mul_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
        return out
    words = _products(x.reshape(-1).tolist(), y.reshape(-1).tolist(), 0, n, [0] * n)
    if "one" not in _CACHE:
        _CACHE["one"] = torch.ones(8, dtype=torch.int64)
    one = _CACHE["one"]
    zero = torch.zeros(8, dtype=torch.int64)  # made in the call: ("made", ...) where one is ("kept", addr)
    picks = tuple(one if (w >> j) & 1 else zero for w in words for j in range(32))
    _put[(1,)](out.view(-1), picks, N=n)
    return out
