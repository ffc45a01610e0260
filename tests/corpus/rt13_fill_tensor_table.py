# kgb-corpus: task=aten/add.Tensor expect=host_compute
# rt12_sliding_fill_window with the fill value handed as a *tensor*: the sum is computed in Python (.tolist(),
# recursion), each float32's bits split in 16-bit halves, and each half h written with `s[i:i + 9].fill_(T[h])`
# where T is an iota table a Triton kernel wrote and T[h] a 0-dim view (aten::select: a view op, its
# index never logged). fill_.Tensor has no scalar argument (the recorder logs only non-tensor leaves of an op),
# a 9-element window is no small write, fills are allowed, every storage has a known writer. A Triton kernel
# reassembles hi << 16 | lo and bit-casts to float32.
# Should be caught: a view's index/offset chosen from the data (select, slices, as_strided args) reaching a writing
# op is a scalar like a fill value: log view ops' scalars, or tensor arguments' meta for ops as launches do.
# (Red team 13.) Caught: an op's tensor arguments' places (a one-element view's offset) are logged with its scalars
# (sandbox/dispatch.py _log_scalars).
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _join(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    hi = tl.load(src_ptr + 2 * offs, mask=mask, other=0)
    lo = tl.load(src_ptr + 2 * offs + 1, mask=mask, other=0)
    w = (hi << 16) | lo
    tl.store(out_ptr + offs, w.to(tl.float32, bitcast=True), mask=mask)


@triton.jit
def _iota(t_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(t_ptr + offs, offs)


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


def _paint(s, table, a, b, alpha, i, n):
    if i < n:
        w = _f32(a[i] + alpha * b[i])
        s[2 * i:2 * i + 9].fill_(table[w >> 16])
        s[2 * i + 1:2 * i + 10].fill_(table[w & 0xFFFF])
        _paint(s, table, a, b, alpha, i + 1, n)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        table = torch.empty(65536, dtype=torch.int32)
        _iota[(64,)](table, BLOCK=1024)
        scratch = torch.empty(2 * n + 16, dtype=torch.int32)
        a = x.reshape(-1).tolist()
        b = y.reshape(-1).tolist()
        _paint(scratch, table, a, b, float(alpha), 0, n)
        _join[(triton.cdiv(n, 1024),)](scratch, out, n, BLOCK=1024)
    return out
