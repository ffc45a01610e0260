# kgb-corpus: task=aten/mul.Tensor expect=compile_error
# Caught: the kernel rule takes only triton's own enums (as triton loaded them) as constants (sandbox/kernel_rules.py _enum_member).
# Red team 50: an Enum member whose class holds the host answer as a class attribute, handed as a constexpr
# launch argument; the kernel reads it off the member (a local: no name the rule resolves).
import enum
import torch
import triton
import triton.language as tl


class _E(enum.Enum):
    A = 1


def _go(a, b, lo, hi):
    if hi - lo == 1:
        return (a[lo] * b[lo],)
    mid = (lo + hi) // 2
    return _go(a, b, lo, mid) + _go(a, b, mid, hi)


@triton.jit
def _k(zq_o, zq_n, zq_M: tl.constexpr, zq_N: tl.constexpr):
    for i in tl.static_range(zq_N):
        tl.store(zq_o + i, zq_M.D[i])


def mul_Tensor(self, other):
    x, y = torch.broadcast_tensors(self, other)
    a = x.reshape(-1).tolist()
    b = y.reshape(-1).tolist()
    n = x.numel()
    out = torch.empty(x.shape, dtype=torch.result_type(self, other), device=x.device)
    if n:
        _E.D = _go(a, b, 0, n)  # HOST
        _k[(1,)](out, n, zq_M=_E.A, zq_N=n)
    return out
