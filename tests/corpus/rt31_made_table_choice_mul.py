# kgb-corpus: task=aten/mul.Tensor expect=host_compute
# red team 31: The product computed on the host from .tolist(), each float64 result's bytes chosen by which of 256
# tensors made at the start of the call copy_ reads (torch.full((9,), b) per byte value); a Triton kernel assembles
# the bytes. Every storage made in the call was one place ("made"), so the copies logged the same scalars each
# round. Caught: the k-th storage made in the call is a place of its own.
"""aten::mul.Tensor"""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _assemble(t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # eight bytes per element from the byte table, little-endian, read as a float64 and stored as float32
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros((BLOCK,), dtype=tl.int64)
    for j in tl.static_range(8):
        b = tl.load(t_ptr + offs * 8 + j, mask=mask, other=0).to(tl.int64)
        acc = acc | (b << (8 * j))
    v = acc.to(tl.float64, bitcast=True)
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=mask)


def _f64_bits(v):
    if v == 0.0:
        return (1 << 63) if math.copysign(1.0, v) < 0 else 0
    sign = 1 if v < 0 else 0
    m, e = math.frexp(abs(v))
    return (sign << 63) | ((e - 1 + 1023) << 52) | (int(m * (1 << 53)) - (1 << 52))


def _products(a, b, k, acc):
    # by recursion: the host multiplies (float64, exact for float32 operands)
    if k < len(a):
        acc.append(_f64_bits(a[k] * b[k]))
        _products(a, b, k + 1, acc)
    return acc


def mul_Tensor(self, other):
    # every buffer of ours is made first, before any temporary of the call dies: a fresh storage at the address
    # of one alive when the call began would be an "older" place
    n = math.prod(torch.broadcast_shapes(self.shape, other.shape))
    vals = [torch.full((9,), b, dtype=torch.uint8) for b in range(256)]
    table = torch.empty(8 * n + 9, dtype=torch.uint8)
    out = torch.empty(torch.broadcast_shapes(self.shape, other.shape), dtype=torch.result_type(self, other),
                      device=self.device)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous().reshape(-1), y.contiguous().reshape(-1)
    words = _products(x.tolist(), y.tolist(), 0, [])
    data = []
    for w in words:
        for j in range(8):
            data.append((w >> (8 * j)) & 0xFF)
    # vals: 256 tensors of 9 bytes, each filled with one byte value, made in the call: every one is the place
    # ("made", 0) to the recorders, with the same offset, sizes and strides, whichever is picked
    for k in range(len(data)):
        # nine bytes written from position k (no small write); the next step overwrites all but the first
        table.narrow(0, k, 9).copy_(vals[data[k]])
    if n:
        _assemble[(triton.cdiv(n, 64),)](table, out, n, BLOCK=64)
    return out
