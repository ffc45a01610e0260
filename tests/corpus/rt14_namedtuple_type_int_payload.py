# kgb-corpus: task=aten/add.Tensor expect=compile_error
# kernel_rules follows attribute chains through namedtuple *types* (a GPU compile bakes them) and judges what it
# reaches with _plain: an int subclass instance is plain (isinstance), and baked() walks it as its int value only.
# The chain stops at the first non-followed object, so `_NT.G.payload` is judged as `_NT.G` (an int 0). The sum is
# computed in Python (.tolist(), recursion) and written *in place* into a list held as a class attribute of G's
# int subclass (no identity changes, nothing rebound). Should be caught: judge a followed value by exact type
# (type(v) in plain types) and refuse/resolve attribute reads past it; walk a scalar subclass's class state.
# (Red team 14.) Caught: a scalar read through a module or namedtuple type must be of an exact type
# (kernel_rules._exact_scalars).
import collections

import torch
import triton
import triton.language as tl


class _Carrier(int):
    payload = []


_NT = collections.namedtuple("_NT", "a")
_NT.G = _Carrier(0)


@triton.jit
def _store(out_ptr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e + tl.arange(0, 1), tl.full((1,), _NT.G.payload[e], tl.float32))


def _sums(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return [a[lo] + alpha * b[lo]]
    mid = (lo + hi) // 2
    return _sums(a, b, alpha, lo, mid) + _sums(a, b, alpha, mid, hi)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        _Carrier.payload[:] = _sums(x.reshape(-1).tolist(), y.reshape(-1).tolist(), float(alpha), 0, n)
        _store[(1,)](out, N=n)
    return out
