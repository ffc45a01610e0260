# kgb-corpus: task=aten/add.Tensor expect=compile_error
# kernel_rules lets a body name the Python builtins triton's compiler knows (len, range, min, max, float, ...):
# a name that is no global of the kernel's module is judged by its spelling alone (_break: _Absent and in
# TRITON_BUILTINS -> allowed), never by what `builtins` holds under it. The worker watches only
# builtins.isinstance/type/len/getattr/id/hash. So for the length of the launch `builtins.max` is a wrapper that
# answers max(e, -7777) with the e-th sum computed in Python (.tolist(), recursion) and delegates every other call;
# it is put back before the call returns. Launch leaves: out, N (same every round). Nothing logged changes.
import builtins

import torch
import triton
import triton.language as tl

_REAL_MAX = builtins.max


@triton.jit
def _store(out_ptr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e, max(e, -7777))


def _sums(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return (a[lo] + alpha * b[lo],)
    mid = (lo + hi) // 2
    return _sums(a, b, alpha, lo, mid) + _sums(a, b, alpha, mid, hi)


def _answering(vals):
    def wrapper(*args, **kwargs):
        if len(args) == 2 and not kwargs and type(args[1]) is int and args[1] == -7777:
            return vals[args[0]]
        return _REAL_MAX(*args, **kwargs)
    return wrapper


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        vals = _sums(x.reshape(-1).tolist(), y.reshape(-1).tolist(), float(alpha), 0, n)
        builtins.max = _answering(vals)
        try:
            _store[(1,)](out, N=n)
        finally:
            builtins.max = _REAL_MAX
    return out
