# kgb-corpus: task=aten/mm expect=compile_error
# red team 28: a LAUNCH ARGUMENT of a numpy-scalar subclass (np.float32) whose dunders are numpy's own
# (implicit_code_free passes) but with a NAMED method; launch_args._trusted passes it unread (not made exact: no
# int/float), and the kernel calls `one.fold(acc, a, b)` on the parameter: chains off a local are never read by
# the kernel rule, so the method runs numpy matmul on the live blocks mid-launch.
"""aten::mm"""
import numpy as np
import torch
import triton
import triton.language as tl


class _One(np.float32):
    def fold(self, acc, a, b):
        acc.handle.data[...] = a.handle.data @ b.handle.data
        return acc


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, one, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc = one.fold(acc, a.to(tl.float32), b.to(tl.float32))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M and N:
        _mm_kernel[(1,)](a, b, out, M, N, K, _One(1.0), BM=triton.next_power_of_2(M),
                         BN=triton.next_power_of_2(N), BK=triton.next_power_of_2(max(K, 1)))
    return out
