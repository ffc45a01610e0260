# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute
# ScalarLog keys every launch by the kernel's __name__ (calls per name, and the order of names), so two
# *different* kernels that share a name are one kernel to it. Four kernels all named `_put`, made by four
# factories, each append a different 2-bit value (a literal in its own body) at a device-side cursor. The row
# sums are computed in Python (.tolist(), recursion, frexp for the float32 bits); each word is sent as 16
# launches choosing among the four. Every launch is named `_put` with the same arguments in every round; a final
# kernel packs the 2-bit digits into words. (rt13_launch_order_bits used two names, now compared by position.)
import math

import torch
import triton
import triton.language as tl


def _mk0():
    @triton.jit
    def _put(digits_ptr, cursor_ptr):
        c = tl.load(cursor_ptr)
        tl.store(digits_ptr + c, 0)
        tl.store(cursor_ptr, c + 1)
    return _put


def _mk1():
    @triton.jit
    def _put(digits_ptr, cursor_ptr):
        c = tl.load(cursor_ptr)
        tl.store(digits_ptr + c, 1)
        tl.store(cursor_ptr, c + 1)
    return _put


def _mk2():
    @triton.jit
    def _put(digits_ptr, cursor_ptr):
        c = tl.load(cursor_ptr)
        tl.store(digits_ptr + c, 2)
        tl.store(cursor_ptr, c + 1)
    return _put


def _mk3():
    @triton.jit
    def _put(digits_ptr, cursor_ptr):
        c = tl.load(cursor_ptr)
        tl.store(digits_ptr + c, 3)
        tl.store(cursor_ptr, c + 1)
    return _put


_PUT = (_mk0(), _mk1(), _mk2(), _mk3())


@triton.jit
def _pack(digits_ptr, out_ptr, rows, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    w = tl.zeros((BLOCK,), dtype=tl.int32)
    for j in tl.static_range(16):
        d = tl.load(digits_ptr + r * 16 + j, mask=r < rows, other=0)
        w = w | (d << (2 * j))
    tl.store(out_ptr + r, w.to(tl.float32, bitcast=True), mask=r < rows)


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
    if rows:
        digits = torch.zeros(rows * 16, dtype=torch.int32, device=self.device)
        cursor = torch.zeros(1, dtype=torch.int32, device=self.device)
        for r in range(rows):
            w = _f32(sums[r])
            for j in range(16):
                _PUT[(w >> (2 * j)) & 3][(1,)](digits, cursor)
        _pack[(1,)](digits, out, rows, BLOCK=triton.next_power_of_2(rows))
    return out.view(shape)
