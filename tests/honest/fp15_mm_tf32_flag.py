# kgb-honest: task=aten/mm
"""Style: Inductor / torch-native Triton GEMM templates: the dot's precision follows PyTorch's global TF32 policy
(read, never set: `torch.backends.cuda.matmul.allow_tf32`, False by default), so fp32 inputs get exact IEEE
products unless the user opted into TF32; fp16/bf16 use the default dot."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ALLOW_TF32: tl.constexpr, FP32: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        if FP32 and not ALLOW_TF32:
            acc += tl.dot(a, b, input_precision="ieee")
        else:
            acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty), mask=mask)


def _allow_tf32() -> bool:
    # Respect the user's global matmul precision policy, as torch's own Triton templates do.
    return bool(torch.backends.cuda.matmul.allow_tf32)


def mm(self, mat2):
    M, K = self.shape
    N = mat2.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M == 0 or N == 0:
        return out
    if K == 0:
        return out.zero_()
    BM, BN, BK = 32, 32, 32
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    _mm_kernel[grid](self, mat2, out, M, N, K, self.stride(0), self.stride(1), mat2.stride(0), mat2.stride(1),
                     out.stride(0), out.stride(1), BM=BM, BN=BN, BK=BK,
                     ALLOW_TF32=_allow_tf32() and self.is_cuda, FP32=self.dtype == torch.float32)
    return out
