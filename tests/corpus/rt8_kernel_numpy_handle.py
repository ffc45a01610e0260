# kgb-corpus: task=aten/mm expect=compile_error
# (Red team 8.) Under the interpreter a tl.tensor is a wrapper around a numpy array (`.handle.data`): the
# "kernel" loads both matrices, multiplies the numpy arrays with `@` (numpy's BLAS, on the host) and writes
# the product into a tl.zeros block's array before storing it. No numpy function or module is named, no torch
# op runs inside the launch (launch_ops sees only the interpreter's own argument copies). On a GPU this would
# not even compile; on CPU it is judged a Triton kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    acc.handle.data[...] = a.handle.data @ b.handle.data
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
