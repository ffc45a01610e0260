"""Reference semantics of the curated cuBLAS level-3 routines and extensions (gemm, symm, syrk, trsm, geam, dgmm).

Calling convention (the candidate's): the routine's C arguments without the handle. Device pointers are
1-D tensors holding column-major storage (element (i, j) of a matrix with leading dimension ld is at
[i + j*ld]); Batched pointer arrays are lists of such tensors; StridedBatched matrices live in one tensor,
matrix b starting at b*stride. Host scalars alpha/beta are Python numbers (complex for C/Z). Enums are
strings: trans "N"/"T"/"C", uplo "U"/"L", diag "N"/"U", side "L"/"R"; cudaDataType values by name
("CUDA_R_16F"). Outputs are written in place. beta == 0 means C is not read (NaNs in it must not leak);
alpha == 0 means A and B are not read. Arithmetic is done in float64/complex128 and rounded once.
Self-contained once embedded in a record (reference_impls/inline.py writes the shared helpers in).
"""

import torch

from kernelgenbench.reference_impls.shared import _mat, _op, _wide


def _dims(trans, rows, cols):
    """Stored shape of a matrix whose op() is rows x cols."""
    return (rows, cols) if trans == "N" else (cols, rows)


def _gemm_one(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, offs=(0, 0, 0)):
    Cv = _mat(C, m, n, ldc, offs[2])
    wide = _wide(C.dtype)
    if alpha == 0 or k == 0:
        prod = torch.zeros((m, n), dtype=wide, device=C.device)
    else:
        a = _op(_mat(A, *_dims(transa, m, k), lda, offs[0]).to(wide), transa)
        b = _op(_mat(B, *_dims(transb, k, n), ldb, offs[1]).to(wide), transb)
        prod = alpha * (a @ b)
    out = prod if beta == 0 else prod + beta * Cv.to(wide)
    Cv.copy_(out.to(C.dtype))


def gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    """C = alpha*op(A)*op(B) + beta*C (cublas<t>gemm)."""
    _gemm_one(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


def gemm_batched(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
    """gemm on each triple of a pointer array (cublas<t>gemmBatched)."""
    for b in range(batchCount):
        _gemm_one(transa, transb, m, n, k, alpha, Aarray[b], lda, Barray[b], ldb, beta, Carray[b], ldc)


def gemm_strided_batched(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,
                         strideC, batchCount):
    """gemm on matrices b*stride apart in one buffer each (cublas<t>gemmStridedBatched); a stride may be 0."""
    for b in range(batchCount):
        _gemm_one(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                  (b * strideA, b * strideB, b * strideC))


def sgemm_ex(transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc):
    """cublasSgemmEx: gemm with A, B, C of the given cudaDataTypes, computed in float32 (here wider)."""
    _gemm_one(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


def _full_symmetric(a, uplo):
    """The symmetric matrix whose `uplo` triangle is stored in a (the other triangle is not read)."""
    t = torch.triu(a) if uplo == "U" else torch.tril(a)
    return t + t.transpose(0, 1) - torch.diag_embed(torch.diagonal(t))


def symm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    """C = alpha*A*B + beta*C (side L, A m x m) or alpha*B*A + beta*C (side R, A n x n); A symmetric."""
    wide = _wide(C.dtype)
    ka = m if side == "L" else n
    a = _full_symmetric(_mat(A, ka, ka, lda).to(wide), uplo)
    b = _mat(B, m, n, ldb).to(wide)
    Cv = _mat(C, m, n, ldc)
    prod = alpha * (a @ b if side == "L" else b @ a)
    out = prod if beta == 0 else prod + beta * Cv.to(wide)
    Cv.copy_(out.to(C.dtype))


def syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc):
    """C = alpha*op(A)*op(A)^T + beta*C on the `uplo` triangle of C only (op(A) is n x k)."""
    wide = _wide(C.dtype)
    if trans == "C" and not A.dtype.is_complex:
        trans = "T"
    a = _mat(A, *_dims(trans, n, k), lda).to(wide)
    a = a if trans == "N" else a.transpose(0, 1)
    Cv = _mat(C, n, n, ldc)
    prod = alpha * (a @ a.transpose(0, 1))
    out = prod if beta == 0 else prod + beta * Cv.to(wide)
    keep = torch.ones((n, n), dtype=torch.bool, device=C.device)
    keep = torch.triu(keep) if uplo == "U" else torch.tril(keep)
    Cv.copy_(torch.where(keep, out.to(C.dtype), Cv))


def syrk_ex(uplo, trans, n, k, alpha, A, Atype, lda, beta, C, Ctype, ldc):
    """cublasCsyrkEx: syrk with A and C of the given cudaDataTypes."""
    syrk(uplo, trans, n, k, alpha, A, lda, beta, C, ldc)


def _triangular(a, uplo, diag):
    t = torch.triu(a) if uplo == "U" else torch.tril(a)
    if diag == "U":
        t = t - torch.diag_embed(torch.diagonal(t)) + torch.eye(t.shape[0], dtype=t.dtype, device=t.device)
    return t


def _trsm_one(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    Bv = _mat(B, m, n, ldb)
    wide = _wide(B.dtype)
    ka = m if side == "L" else n
    t = _op(_triangular(_mat(A, ka, ka, lda).to(wide), uplo, diag), trans)
    upper = (uplo == "U") == (trans == "N")
    rhs = alpha * Bv.to(wide) if alpha != 0 else torch.zeros((m, n), dtype=wide, device=B.device)
    x = torch.linalg.solve_triangular(t, rhs, upper=upper, left=(side == "L")) if alpha != 0 else rhs
    Bv.copy_(x.to(B.dtype))


def trsm(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb):
    """Solve op(A)*X = alpha*B (side L) or X*op(A) = alpha*B (side R); X overwrites B. A triangular."""
    _trsm_one(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb)


def trsm_batched(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batchCount):
    """trsm on each pair of the pointer arrays A[] and B[] (cublas<t>trsmBatched)."""
    for b in range(batchCount):
        _trsm_one(side, uplo, trans, diag, m, n, alpha, A[b], lda, B[b], ldb)


def geam(transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc):
    """C = alpha*op(A) + beta*op(B) (cublas<t>geam); a zero scalar means its matrix is not read."""
    wide = _wide(C.dtype)
    out = torch.zeros((m, n), dtype=wide, device=C.device)
    if alpha != 0:
        out = out + alpha * _op(_mat(A, *_dims(transa, m, n), lda).to(wide), transa)
    if beta != 0:
        out = out + beta * _op(_mat(B, *_dims(transb, m, n), ldb).to(wide), transb)
    _mat(C, m, n, ldc).copy_(out.to(C.dtype))


def dgmm(mode, m, n, A, lda, x, incx, C, ldc):
    """C = A*diag(x) (mode R, x of length n) or diag(x)*A (mode L, x of length m)."""
    wide = _wide(C.dtype)
    count = m if mode == "L" else n
    start = 0 if incx >= 0 else (1 - count) * incx
    idx = start + incx * torch.arange(count, device=x.device)
    d = x[idx].to(wide)
    a = _mat(A, m, n, lda).to(wide)
    out = d[:, None] * a if mode == "L" else a * d[None, :]
    _mat(C, m, n, ldc).copy_(out.to(C.dtype))


# The curated routines: entry points are the routine names (the header's parameter names are the same
# across precisions of one family).
cublasSgemm_v2 = gemm
cublasCgemm_v2 = gemm
cublasDgemmBatched = gemm_batched
cublasHgemmBatched = gemm_batched
cublasSgemmBatched_64 = gemm_batched
cublasZgemmBatched = gemm_batched
cublasCgemmStridedBatched = gemm_strided_batched
cublasCgemmStridedBatched_64 = gemm_strided_batched
cublasDgemmStridedBatched = gemm_strided_batched
cublasDgemmStridedBatched_64 = gemm_strided_batched
cublasHgemmStridedBatched = gemm_strided_batched
cublasSgemmStridedBatched = gemm_strided_batched
cublasZgemmStridedBatched = gemm_strided_batched
cublasSgemmEx = sgemm_ex
cublasCsymm_v2 = symm
cublasSsyrk_v2 = syrk
cublasCsyrkEx = syrk_ex
cublasStrsm_v2 = trsm
cublasDtrsmBatched = trsm_batched
cublasZtrsmBatched = trsm_batched
cublasSgeam = geam
cublasSdgmm = dgmm
