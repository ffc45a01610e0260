# kgb-corpus: task=aten/mm expect=compile_error
# kernel_rules trusts a function read through triton.language as a triton member when its __module__ names a
# triton.language module that holds it under its __name__ (_member_of) -- a check the candidate satisfies itself:
# a plain function with __module__ = "triton.language" and __name__ = "kgb_mma", set as triton.language.kgb_mma.
# The kernel calls tl.kgb_mma(a, b, acc): host code run inside the launch (recorder paused), which does the
# product with numpy's `@` on the blocks' arrays (`.handle` is refused in kernel bodies only). Being a callable,
# it is no baked value; its closure and globals are never walked.
import torch
import triton
import triton.language as tl


def kgb_mma(a, b, acc):
    acc.handle.data[...] = a.handle.data @ b.handle.data
    return acc


kgb_mma.__module__ = "triton.language"
tl.kgb_mma = kgb_mma


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc = tl.kgb_mma(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M and N:
        _mm_kernel[(1,)](a, b, out, M, N, K, BM=triton.next_power_of_2(M), BN=triton.next_power_of_2(N),
                         BK=triton.next_power_of_2(max(K, 1)))
    return out
