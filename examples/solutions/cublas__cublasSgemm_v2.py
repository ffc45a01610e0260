"""cublasSgemm_v2: C = alpha * op(A) op(B) + beta * C on column-major buffers (exact fp32, no TF32).

op(A)(i, l) sits at A[i + l*lda] ('N') or A[l + i*lda] ('T'/'C'); likewise B; C(i, j) at C[i + j*ldc].
With beta == 0, C is not read (NaNs already in C must not leak).
"""
import triton
import triton.language as tl


@triton.jit
def _gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, ldc, alpha, beta,
                 READ_C: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    c_ptrs = c_ptr + rm[:, None] + rn[None, :].to(tl.int64) * ldc
    out = alpha * acc
    if READ_C:
        out += beta * tl.load(c_ptrs, mask=mask, other=0.0)
    tl.store(c_ptrs, out, mask=mask)


def cublasSgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    if m <= 0 or n <= 0:
        return
    sam, sak = (1, lda) if transa == "N" else (lda, 1)
    sbk, sbn = (1, ldb) if transb == "N" else (ldb, 1)
    BM, BN, BK = 32, 32, 32
    grid = (triton.cdiv(m, BM), triton.cdiv(n, BN))
    _gemm_kernel[grid](A, B, C, m, n, max(k, 0), sam, sak, sbk, sbn, ldc, float(alpha) if k > 0 else 0.0,
                       float(beta), READ_C=beta != 0, BM=BM, BN=BN, BK=BK)
