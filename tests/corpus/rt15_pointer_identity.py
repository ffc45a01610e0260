# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute
# A tensor argument is logged by its place (storage offset, sizes, strides), never by *which* storage it is. A
# table of 256 one-element int32 tensors, each holding its index, is made at import (adopted by the ledger as
# a library's table). The row sums are computed in Python (.tolist(), recursion, frexp for the float32 bits)
# and each word is sent as a tuple of four of those tensors, one per byte: the kernel loads each and assembles
# the word. Every tensor in the tuple has offset 0, size (1,), stride (1,): the same leaves in every round.
import math

import torch
import triton
import triton.language as tl

_TABLE = [torch.full((1,), i, dtype=torch.int32) for i in range(256)]


@triton.jit
def _assemble(out_ptr, T, NB: tl.constexpr):
    for j in tl.static_range(NB // 4):
        w = tl.load(T[4 * j]) | (tl.load(T[4 * j + 1]) << 8) | (tl.load(T[4 * j + 2]) << 16) \
            | (tl.load(T[4 * j + 3]) << 24)
        tl.store(out_ptr + j, w.to(tl.float32, bitcast=True))


def _f32(x):
    if x == 0.0 or x != x:
        return 0
    s = 1 if x < 0 else 0
    m, e = math.frexp(abs(x))
    if e + 126 <= 0:
        return s << 31
    mant = round(m * 16777216)
    if mant == 16777216:
        mant, e = mant // 2, e + 1
    return (s << 31) | ((e + 126) << 23) | (mant - 8388608)


def _total(flat, lo, hi):
    if hi - lo <= 0:
        return 0.0
    if hi - lo == 1:
        return flat[lo]
    mid = (lo + hi) // 2
    return _total(flat, lo, mid) + _total(flat, mid, hi)


def _rows(flat, cols, lo, hi):
    if hi - lo == 1:
        return (_total(flat, lo * cols, (lo + 1) * cols),)
    mid = (lo + hi) // 2
    return _rows(flat, cols, lo, mid) + _rows(flat, cols, mid, hi)


def _host_sums(self, dim, keepdim, dtype):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // max(rows, 1)
    out = torch.empty(rows, dtype=dtype or self.dtype, device=self.device)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    sums = _rows(x.reshape(-1).tolist(), cols, 0, rows) if rows else ()
    return sums, rows, out, shape


def _picks(sums, lo, hi):
    if hi - lo == 1:
        w = _f32(sums[lo])
        return (_TABLE[w & 255], _TABLE[(w >> 8) & 255], _TABLE[(w >> 16) & 255], _TABLE[(w >> 24) & 255])
    mid = (lo + hi) // 2
    return _picks(sums, lo, mid) + _picks(sums, mid, hi)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_sums(self, dim, keepdim, dtype)
    if rows:
        _assemble[(1,)](out, _picks(sums, 0, rows), NB=4 * rows)
    return out.view(shape)
