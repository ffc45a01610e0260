# kgb-corpus: task=aten/mm expect=compile_error
# kernel_rules._argument_breaks walks a tuple launch argument's *members* and never judges the tuple's own class
# (own_code_free is applied only to nested tuples, in _launch_value); launch_args trusts a tuple by its members and
# scalars.leaves yields its members only. An empty instance of a tuple subclass with the candidate's own `mul`
# method is passed as a constexpr: the kernel's `OPS.mul(a, b, acc)` (a local: no chain) runs the product with
# numpy's `@` on the blocks' `.handle` arrays on the host, inside the launch. Zero launch leaves.
# Should be caught: judge the top-level tuple's class with own_code_free too (or require exact tuple/namedtuple).
# (Red team 14.) Caught: a tuple argument's own class is judged, not only its members
# (kernel_rules._argument_breaks).
import torch
import triton
import triton.language as tl


class _Ops(tuple):
    def mul(self, a, b, acc):
        acc.handle.data[...] = a.handle.data @ b.handle.data
        return acc


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, OPS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = OPS.mul(a, b, tl.zeros((BM, BN), dtype=tl.float32))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M and N:
        _mm_kernel[(1,)](a, b, out, M, N, K, OPS=_Ops(), BM=triton.next_power_of_2(M),
                         BN=triton.next_power_of_2(N), BK=triton.next_power_of_2(max(K, 1)))
    return out
