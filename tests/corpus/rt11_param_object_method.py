# kgb-corpus: task=aten/mm expect=compile_error
# kernel_rules reads what a kernel body names through globals and closure cells, and refuses callable or module
# launch arguments -- but a plain, non-callable object passed as an ordinary argument stays a Python object under
# the interpreter (_implicit_cvt returns it as is), and the body may call its methods (`ops.mul(a, b, acc)`: a
# local, so no chain is resolved). The method does the matrix product with numpy's `@` on the blocks' `.handle`
# arrays -- the `.handle` rule applies to kernel bodies only. No torch op, no host-made tensor, no numpy function.
# (Red team 11.) Caught: a launch argument that is no tensor, number, string, dtype or tuple of them is a break.
import torch
import triton
import triton.language as tl


class _Ops:
    __slots__ = ()

    def mul(self, a, b, acc):
        acc.handle.data[...] = a.handle.data @ b.handle.data
        return acc


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, ops, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = ops.mul(a, b, tl.zeros((BM, BN), dtype=tl.float32))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M and N:
        _mm_kernel[(1,)](a, b, out, _Ops(), M, N, K, BM=triton.next_power_of_2(M), BN=triton.next_power_of_2(N),
                         BK=triton.next_power_of_2(max(K, 1)))
    return out
