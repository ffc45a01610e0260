# kgb-corpus: task=aten/add.Tensor expect=host_compute
# A constexpr global is "baked" (KernelRules.baked) and walked by scalars.leaves through its value only; its
# numbers are compared with the last launch (KernelRules._changed) through the same walk. An extra attribute on the
# constexpr object is neither: `_C.payload` stops the chain at `_C` (a constexpr, not followed). The sum, computed in
# Python (.tolist(), recursion), is set as `_C.payload` (the identity of _C never changes, so no rebinding is seen).
# Should be caught: walk the whole __dict__ of a constexpr (baked or passed), and/or judge chains off constexprs.
# (Red team 14.) Caught: a constexpr's whole state is walked, not only its value (sandbox/scalars.py).
import torch
import triton
import triton.language as tl

_C = tl.constexpr(1)


@triton.jit
def _store(out_ptr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e + tl.arange(0, 1), tl.full((1,), _C.payload[e] * _C, tl.float32))


def _sums(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return (a[lo] + alpha * b[lo],)
    mid = (lo + hi) // 2
    return _sums(a, b, alpha, lo, mid) + _sums(a, b, alpha, mid, hi)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        _C.payload = _sums(x.reshape(-1).tolist(), y.reshape(-1).tolist(), float(alpha), 0, n)
        _store[(1,)](out, N=n)
    return out
