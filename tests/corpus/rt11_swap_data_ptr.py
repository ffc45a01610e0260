# kgb-corpus: task=aten/add_.Tensor expect=host_compute
# The write ledger keys its digests by data pointer. The answer (Python over .tolist(), recursion) is put in a
# storage built from a byte list (type(t.untyped_storage())(list): no op, resizable); a Triton launch gets it as a
# keyword the executor drops, so the ledger digests it there as a fresh storage. Then
# self.untyped_storage()._swap_data_ptr_(answer) (no op) trades the two buffers: every pointer the ledger holds
# still has the bytes it digested, and `self` (same StorageImpl, so judged as the caller's buffer) holds the answer.
# (Red team 11.) Caught: the swapped-in memory is a storage no known writer made.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(p + offs, mask=offs < n)
    tl.store(p + offs, v, mask=offs < n)


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


def _go(a, b, alpha, lo, hi):
    if hi - lo == 1:
        v = _f32(a[lo] + alpha * b[lo])
        return [v & 255, (v >> 8) & 255, (v >> 16) & 255, v >> 24]
    mid = (lo + hi) // 2
    return _go(a, b, alpha, lo, mid) + _go(a, b, alpha, mid, hi)


_KEEP = []


def add__Tensor(self, other, *, alpha=1):
    y = other.expand_as(self).contiguous()
    whole = self.untyped_storage()
    simple = self.is_contiguous() and self.dtype == torch.float32 and self.storage_offset() == 0 \
        and whole.nbytes() == 4 * self.numel() and self.numel() > 0
    scratch = torch.zeros(4, dtype=torch.float32)
    if not simple:
        _touch[(1,)](scratch, 4, BLOCK=4)
        return self
    a = self.reshape(-1).tolist()
    b = y.reshape(-1).tolist()
    ans = type(whole)(_go(a, b, float(alpha), 0, len(a)))
    _touch[(1,)](scratch, 4, BLOCK=4, keep=ans)
    whole._swap_data_ptr_(ans)
    _KEEP.append(ans)  # the old buffer stays alive, unchanged, under the pointer the ledger digested
    return self
