# kgb-corpus: task=aten/mm expect=compile_error
# rt12_int_subclass_method_mm moved from a launch argument (now replaced by its exact int, launch_args) to a value
# the kernel reads through a namedtuple *type* (kernel_rules follows those as a GPU compile bakes them): `_NT.OPS` is
# judged with _plain, an isinstance test, so an int subclass with the candidate's own `mul` is a plain constant; the
# chain stops there, so `.mul` is never resolved. The kernel's `_NT.OPS.mul(a, b, acc)` does the product with
# numpy's `@` on the blocks' `.handle` arrays on the host, inside the launch.
# Should be caught: _plain must require exact plain types (or own_code_free of the class) for followed values too.
# (Red team 14.) Caught: a scalar read through a module or namedtuple type must be of an exact type
# (kernel_rules._exact_scalars).
import collections

import torch
import triton
import triton.language as tl


class _Ops(int):
    def mul(self, a, b, acc):
        acc.handle.data[...] = a.handle.data @ b.handle.data
        return acc


_NT = collections.namedtuple("_NT", "a")
_NT.OPS = _Ops(0)


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = _NT.OPS.mul(a, b, tl.zeros((BM, BN), dtype=tl.float32))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M and N:
        _mm_kernel[(1,)](a, b, out, M, N, K, BM=triton.next_power_of_2(M),
                         BN=triton.next_power_of_2(N), BK=triton.next_power_of_2(max(K, 1)))
    return out
