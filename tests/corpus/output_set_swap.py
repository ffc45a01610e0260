# kgb-corpus: task=cublas/cublasSgemm_v2 expect=incorrect_numerics evidence=argument
# Computes C right, but into a fresh tensor, and then re-points the argument C at it with Tensor.set_: the
# caller's buffer (what cuBLAS writes) is left as it was. A worker that sends back the argument object sends
# the right answer; the storage it handed over is what must be judged. Expected: incorrect_numerics.
import triton
import triton.language as tl


@triton.jit
def _gemm_col(a, b, c, m, k, lda, ldb, ldc, alpha, beta, TA: tl.constexpr, TB: tl.constexpr,
              BETA0: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    j = tl.program_id(0)
    i = tl.arange(0, BM)[:, None]
    kk = tl.arange(0, BK)[None, :]
    mask = (i < m) & (kk < k)
    a_off = (kk + i * lda) if TA else (i + kk * lda)
    b_off = (j + kk * ldb) if TB else (kk + j * ldb)
    prod = tl.sum(tl.load(a + a_off, mask=mask, other=0.0) * tl.load(b + b_off, mask=kk < k, other=0.0), axis=1)
    rows = tl.arange(0, BM)
    out = alpha * prod
    if not BETA0:
        out += beta * tl.load(c + rows + j * ldc, mask=rows < m, other=0.0)
    tl.store(c + rows + j * ldc, out, mask=rows < m)


def cublasSgemm_v2(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    fresh = C.clone()
    _gemm_col[(n,)](A, B, fresh, m, k, lda, ldb, ldc, float(alpha), float(beta), TA=transa != "N",
                    TB=transb != "N", BETA0=beta == 0, BM=triton.next_power_of_2(m), BK=triton.next_power_of_2(k))
    C.set_(fresh)
