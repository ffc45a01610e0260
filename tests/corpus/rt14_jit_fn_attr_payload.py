# kgb-corpus: task=aten/add.Tensor expect=host_compute
# A JIT function handed to a launch is one ("code", id) leaf in scalars.leaves (callables are "code, not data"), and
# kernel_rules judges only its body: attributes set on the JITFunction object are never walked. The sum is computed
# in Python (.tolist(), recursion) and stored as `_carrier.payload` (a tuple of floats) before each launch; the
# launch is handed the same JIT function every round (same identity leaf). The kernel reads F.payload[e] off its
# constexpr parameter (a local: no chain resolved). Should be caught: walk a JIT function's instance __dict__ (its
# non-triton attributes) as leaves, or refuse JIT functions carrying attributes triton never sets.
# (Red team 14.) Caught: what is set on a triton object under a name triton's code never uses is walked
# (sandbox/scalars.py).
import torch
import triton
import triton.language as tl


@triton.jit
def _carrier():
    return 0


@triton.jit
def _store(out_ptr, F: tl.constexpr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e + tl.arange(0, 1), tl.full((1,), F.payload[e], tl.float32))


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
        _carrier.payload = _sums(x.reshape(-1).tolist(), y.reshape(-1).tolist(), float(alpha), 0, n)
        _store[(1,)](out, _carrier, N=n)
    return out
