# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute
# The launch grid is no launch leaf: LaunchCounter logs a launch's arguments, its kernels' constants and
# compile-time results, but `_plain_grid` only turns the grid into ints, and nothing logs or compares it. A kernel
# reads its grid with tl.num_programs. The row sums are computed in Python (.tolist(), recursion, frexp for the
# float32 bits) and sent six bits per launch as a 3-D grid of sizes 1..4 (at most 64 programs); every program
# ORs the same bits at the same place (idempotent). The launches' arguments (the word array, row, shift) are the
# same in every round, so no scalar changes between rounds; the word array is viewed as float32 at the end.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _bits(words_ptr, row, shift):
    v = (tl.num_programs(0) - 1) | ((tl.num_programs(1) - 1) << 2) | ((tl.num_programs(2) - 1) << 4)
    old = tl.load(words_ptr + row)
    tl.store(words_ptr + row, old | (v << shift))


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


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_sums(self, dim, keepdim, dtype)
    words = torch.zeros(rows, dtype=torch.int32, device=self.device)
    for r in range(rows):
        w = _f32(sums[r])
        for shift in (0, 6, 12, 18, 24, 30):
            c = (w >> shift) & 63
            _bits[(1 + (c & 3), 1 + ((c >> 2) & 3), 1 + ((c >> 4) & 3))](words, r, shift)
    return words.view(torch.float32).view(shape)
