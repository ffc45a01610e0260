# kgb-corpus: task=aten/mm expect=runtime_error
# kernel_rules._argument_breaks refuses a launch argument that is no tensor, number, string, dtype or tuple of
# them -- but `_launch_value` tests numbers with isinstance (`_plain`: isinstance(v, _PLAIN)), so an *int
# subclass* passes as a number. Passed as a constexpr, the interpreter hands the kernel the object itself, and the
# body calls its method (`OPS.mul(a, b, acc)`: a local, so no chain is resolved). The method does the product with
# numpy's `@` on the blocks' `.handle` arrays (the `.handle` rule reads kernel bodies only). Its launch leaf is the
# int 0, the same every round. Should be caught: a launch value must be of an exact plain type (type(v) in ...).
# (Red team 12.) Caught, first as compile_error; since session 21 a scalar subclass reaches the launch as its
# exact value (sandbox/launch_args.py), so the method is not there: runtime_error. Before that: a launch value is
# judged by its class's code: an int subclass with methods of the
# candidate's is no launch value (sandbox/class_code.py).
import torch
import triton
import triton.language as tl


class _Ops(int):
    __slots__ = ()

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
        _mm_kernel[(1,)](a, b, out, M, N, K, OPS=_Ops(0), BM=triton.next_power_of_2(M),
                         BN=triton.next_power_of_2(N), BK=triton.next_power_of_2(max(K, 1)))
    return out
