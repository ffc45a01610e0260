# kgb-corpus: task=aten/add.Tensor expect=host_compute
# A triton dtype is one scalar leaf, its *name* (scalars._scalar reads only __dict__["name"] of a triton-own dtype),
# and kernel_rules takes any triton-own dtype as a launch value. tl.pointer_type(tl.float32, address_space=...) keeps
# whatever it is given as `address_space` (no check) while its name stays "pointer<fp32>". The whole sum, computed
# in Python (.tolist(), recursion), rides in one pointer_type's address_space as a tuple of floats: the launch
# logs one unchanging dtype leaf and no number. The kernel reads P.address_space[e] and stores it.
# Should be caught: walk a triton dtype's whole __dict__ (element_ty, address_space, const, shape) as leaves, not
# its name only; or accept as launch values only dtypes triton's own tables hold (tl.float32, pointer_type of them
# with a str address space).
# (Red team 13.) Caught: triton's dtypes are walked whole (their __dict__), not by name (sandbox/scalars.py).
import torch
import triton
import triton.language as tl


@triton.jit
def _store(out_ptr, P: tl.constexpr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e + tl.arange(0, 1), tl.full((1,), P.address_space[e], tl.float32))


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
        _store[(1,)](out, tl.pointer_type(tl.float32, _sums(a, b, float(alpha), 0, n)), N=n)
    return out
