# kgb-corpus: task=aten/mm expect=compile_error
# rt8_kernel_numpy_handle (numpy matmul on the interpreter's arrays behind the blocks) with the `.handle` read
# spelled getattr(<local>, "handle"): kernel_rules._read_code flags `.handle` only as a LOAD_ATTR/STORE_ATTR
# argval, and _getattr_call ignores a getattr whose object is a local ("the launch arguments are judged"), so
# a literal-name getattr on a block is never seen. No GPU compiles this; the interpreter runs numpy's BLAS.
# (Red team 10.) Caught: a literal 'handle' anywhere in a kernel's bytecode is a `.handle` read.
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
    h = getattr(acc, "handle")
    h.data[...] = getattr(a, "handle").data @ getattr(b, "handle").data
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
