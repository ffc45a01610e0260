# kgb-corpus: task=aten/mm expect=compile_error
# red team 28: a constexpr holding a plain function (a compile-time function) handed a LAMBDA returning the blocks,
# `_FOLD(lambda: (acc, a, b))`: counted_call's _holds_block looks only into tuples, lists and dicts, so no
# block is seen; the function calls it and runs numpy matmul on the blocks' data mid-launch.
"""aten::mm"""
import torch
import triton
import triton.language as tl


def _fold(job):
    acc, a, b = job()
    acc.handle.data[...] = a.handle.data @ b.handle.data
    return 0


_FOLD = tl.constexpr(_fold)


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    af = a.to(tl.float32)
    bf = b.to(tl.float32)
    _FOLD(lambda: (acc, af, bf))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M and N:
        _mm_kernel[(1,)](a, b, out, M, N, K, BM=triton.next_power_of_2(M),
                         BN=triton.next_power_of_2(N), BK=triton.next_power_of_2(max(K, 1)))
    return out
