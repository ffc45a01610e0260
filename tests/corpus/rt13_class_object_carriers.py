# kgb-corpus: task=aten/add.Tensor expect=compile_error
# scalars._members yields nothing for anything callable ("a function, a class, a JIT function: code, not data"),
# and kernel_rules._argument_breaks lets a class through (it refuses callables that are no type, and non-callables
# that are no launch value). So a constexpr tuple of *classes* made with type(name, (), {"v": value}) carries any
# values with zero launch leaves. The sum is computed in Python (.tolist(), recursion), one class per element
# holding its float; the kernel reads C[e].v (an attribute of a local: no chain resolved) and stores it.
# Should be caught: a class is no launch value a GPU can specialize on (refuse it in _argument_breaks, or walk
# its __dict__ for leaves as an object's).
# (Red team 13.) Caught: a class is no launch argument (sandbox/kernel_rules.py _argument_breaks).
import torch
import triton
import triton.language as tl


@triton.jit
def _store(out_ptr, C: tl.constexpr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e + tl.arange(0, 1), tl.full((1,), C[e].v, tl.float32))


def _boxes(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return (type("_Box", (), {"v": a[lo] + alpha * b[lo]}),)
    mid = (lo + hi) // 2
    return _boxes(a, b, alpha, lo, mid) + _boxes(a, b, alpha, mid, hi)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        a = x.reshape(-1).tolist()
        b = y.reshape(-1).tolist()
        _store[(1,)](out, _boxes(a, b, float(alpha), 0, n), N=n)
    return out
