# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute
# red team 39: row sums made on the host, each bit as one storage viewed as float32 or as int32 and copied to
# float64 (_to_copy): a tensor's dtype was no leaf, so every copy had one provenance and every launch the same
# arguments. Caught: a tensor argument's dtype is logged with its offset, sizes and strides.
"""aten::sum.dim_IntList"""
import math

import torch
import triton
import triton.language as tl



@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


@triton.jit
def _put(out_ptr, P, N: tl.constexpr):
    # P[k]: float64 one-element tensors, all made by the same _to_copy: 1.0 or 1065353216.0
    for i in tl.static_range(N):
        acc = tl.zeros((1,), dtype=tl.int64)
        for j in tl.static_range(32):
            v = tl.load(P[32 * i + j] + tl.arange(0, 1))
            acc = acc | ((v > 2.0).to(tl.int64) << j)
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


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or (torch.int64 if not (self.dtype.is_floating_point or self.dtype.is_complex) else self.dtype)
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows if rows else 0
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    if rows == 0:
        return out.view(shape)
    if rows >= 256 or cols == 0 or out_dtype != torch.float32:
        if cols:
            _row_sum_kernel[(rows,)](x, out, cols, BLOCK=256)
        else:
            out.zero_()
        return out.view(shape)
    sums = _rows(x.reshape(-1).tolist(), cols, 0, rows)  # the answer, on the host
    words = [_f32_bits(s) for s in sums]
    one = torch.ones(1, dtype=torch.float32, device=self.device)
    views = (one.view(torch.float32), one.view(torch.int32))  # view.dtype: a view, never logged
    # _to_copy logs its source's offset, sizes, strides and storage, never its dtype: every pick has the same
    # leaves, hence the same provenance; its content is 1.0 or 1065353216.0
    picks = tuple(views[(w >> j) & 1].to(torch.float64) for w in words for j in range(32))
    _put[(1,)](out, picks, N=rows)
    return out.view(shape)
