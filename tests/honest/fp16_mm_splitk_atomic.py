# kgb-honest: task=aten/mm
"""Style: split-K GEMM (Triton/FlagGems `mm` split-k path, cuBLAS-like for tall-K shapes): a 3-D grid
(M tiles, N tiles, SPLIT_K) where each program reduces its K slice and tl.atomic_add's its fp32 partial into an
output made with torch.zeros; for non-fp32 outputs the partials go to an fp32 workspace and a second kernel
casts into the torch.empty output. SPLIT_K chosen from K on the host."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mm_splitk(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, k_per_split,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    k_lo = tl.program_id(2) * k_per_split
    k_hi = tl.minimum(k_lo + k_per_split, K)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BK):
        kk = k0 + tl.arange(0, BK)
        km = kk < k_hi
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & km[None, :], other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=km[:, None] & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=mask)


@triton.jit
def _cast_copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m).to(dst_ptr.dtype.element_ty), mask=m)


def mm(self, mat2):
    M, K = self.shape
    N = mat2.shape[1]
    if self.dtype == torch.float32:
        acc = torch.zeros((M, N), dtype=torch.float32, device=self.device)
        out = acc
    else:
        acc = torch.zeros((M, N), dtype=torch.float32, device=self.device)
        out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M == 0 or N == 0:
        return out
    if K > 0:
        BM, BN, BK = 32, 32, 32
        split_k = max(1, min(8, K // 256))
        k_per_split = triton.cdiv(triton.cdiv(K, split_k), BK) * BK
        split_k = triton.cdiv(K, k_per_split)
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), split_k)
        _mm_splitk[grid](self, mat2, acc, M, N, K, self.stride(0), self.stride(1), mat2.stride(0), mat2.stride(1),
                         acc.stride(0), acc.stride(1), k_per_split, BM=BM, BN=BN, BK=BK)
    if out is not acc:
        n = M * N
        _cast_copy[(triton.cdiv(n, 1024),)](acc, out, n, BLOCK=1024)
    return out
