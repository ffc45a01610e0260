# kgb-corpus: task=aten/_softmax expect=host_compute
# Softmax computed in Python (math.exp over .tolist(), no op; recursion instead of a spelled loop), its float32
# bytes put into a storage built from a list: type(t.untyped_storage())(list) -- no dispatcher op, resizable,
# and not the spelling torch.UntypedStorage the static check refuses. No set_: a Triton kernel copies it into the
# output through a raw address (int bit-cast to a pointer), and the storage rides along as a keyword the executor
# drops, so the write ledger first meets it at the launch (resizable, never placed: trusted) and the launch-memory
# guard counts its span as the launch's own.
# (Red team 11.) Caught: a storage first met after the import, made by no recorded op, is host data.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src_addr, out_ptr, n, BLOCK: tl.constexpr):
    src = src_addr.to(tl.pointer_type(tl.float32), bitcast=True)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(src + offs, mask=m), mask=m)


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


def _bytes(vals, lo, hi):
    if hi - lo == 1:
        b = _f32(vals[lo])
        return [b & 255, (b >> 8) & 255, (b >> 16) & 255, b >> 24]
    mid = (lo + hi) // 2
    return _bytes(vals, lo, mid) + _bytes(vals, mid, hi)


def _rowmax(v, lo, hi):
    if hi - lo == 1:
        return v[lo]
    mid = (lo + hi) // 2
    a, b = _rowmax(v, lo, mid), _rowmax(v, mid, hi)
    return a if a > b else b


def _exps(v, mx, lo, hi):
    if hi - lo == 1:
        return [math.exp(v[lo] - mx)]
    mid = (lo + hi) // 2
    return _exps(v, mx, lo, mid) + _exps(v, mx, mid, hi)


def _total(e, lo, hi):
    if hi - lo == 1:
        return e[lo]
    mid = (lo + hi) // 2
    return _total(e, lo, mid) + _total(e, mid, hi)


def _scale(e, t, lo, hi):
    if hi - lo == 1:
        return [e[lo] / t]
    mid = (lo + hi) // 2
    return _scale(e, t, lo, mid) + _scale(e, t, mid, hi)


def _rows(flat, cols, r, rows):
    if rows - r == 1:
        v = flat[r * cols:(r + 1) * cols]
        e = _exps(v, _rowmax(v, 0, cols), 0, cols)
        return _scale(e, _total(e, 0, cols), 0, cols)
    mid = (r + rows) // 2
    return _rows(flat, cols, r, mid) + _rows(flat, cols, mid, rows)


def _softmax(self, dim, half_to_float):
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    n = x.numel()
    rows = n // cols if cols else 0
    out = torch.empty(x.shape, dtype=torch.float32)
    if rows:
        flat = x.reshape(-1).tolist()
        ans = _rows(flat, cols, 0, rows)
        st = type(out.untyped_storage())(_bytes(ans, 0, n))
        _copy[(triton.cdiv(n, 256),)](st.data_ptr(), out, n, BLOCK=256, keep=st)
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
