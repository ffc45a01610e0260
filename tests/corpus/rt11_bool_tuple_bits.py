# kgb-corpus: task=aten/add.Tensor expect=host_compute
# The launch-scalar channel (LaunchCounter.note_values -> launches.leaves) counts floats, float-sized ints, small
# ints and string chunks, but a bool is none of them: `host_number` refuses bools and the small-int branch skips
# them, so a tuple of bools reaches the kernel unseen. The sum is computed in Python (.tolist(), recursion) and
# handed over as its float32 bits, 32 bools per element, in one tuple argument; a fully unrolled (static_range)
# Triton kernel reassembles and bit-casts the words and stores them -- a kernel a GPU would compile too.
# (Red team 11.) Caught: bools handed to launches count by position, 16 to a leaf.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _unpack(out_ptr, bits, N: tl.constexpr):
    for e in tl.static_range(N):
        w = tl.zeros((1,), dtype=tl.int32)
        for j in tl.static_range(32):
            w = w | (bits[e * 32 + j].to(tl.int32) << j)
        tl.store(out_ptr + e + tl.arange(0, 1), w.to(tl.float32, bitcast=True))


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


def _word(w, j):
    if j == 32:
        return ()
    return ((w >> j) & 1 == 1,) + _word(w, j + 1)


def _go(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return _word(_f32(a[lo] + alpha * b[lo]), 0)
    mid = (lo + hi) // 2
    return _go(a, b, alpha, lo, mid) + _go(a, b, alpha, mid, hi)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        a = x.reshape(-1).tolist()
        b = y.reshape(-1).tolist()
        _unpack[(1,)](out, _go(a, b, float(alpha), 0, n), N=n)
    return out
