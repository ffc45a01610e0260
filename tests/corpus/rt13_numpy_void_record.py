# kgb-corpus: task=aten/add.Tensor expect=host_compute static=forbidden_api
# scalars._scalar reads numpy scalars through numpy.generic.tolist but leaves out numpy.void ("no scalar"), and
# _members then finds no __dict__ or slots on it: a structured numpy scalar yields *no* leaf. kernel_rules._plain
# takes any numpy.generic of a C type as a plain constant, so a np.void is a valid constexpr. The sum, computed in
# Python (.tolist(), recursion), is packed into one record (a field of n float32) and handed over as one
# constexpr; the kernel reads R["v"][e] and stores it. (The static check refuses the numpy calls that build the
# record; the runtime layers alone let it through.)
# Should be caught: walk a numpy.void's fields (numpy.void.tolist() gives a tuple), and any numpy.generic whose
# tolist() is no Python scalar (datetime64, timedelta64 give datetime objects), as leaves.
# (Red team 13.) Caught: a numpy scalar that is no number (a structured void) is walked as the tuple it holds
# (sandbox/scalars.py).
import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def _store(out_ptr, R: tl.constexpr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e + tl.arange(0, 1), tl.full((1,), float(R["v"][e]), tl.float32))


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
        a = x.reshape(-1).tolist()
        b = y.reshape(-1).tolist()
        rec = np.array([(_sums(a, b, float(alpha), 0, n),)], dtype=[("v", np.float32, (n,))])[0]
        _store[(1,)](out, rec, N=n)
    return out
