"""Reference semantics of the curated cuBLAS level-2 routines (gemv and its batches, ger, symv, sbmv, syr2,
tbmv, trsv).

Calling convention (the candidate's): the routine's C arguments without the handle. Device pointers are
1-D tensors holding column-major storage (element (i, j) at [i + j*lda]); vectors are read at stride inc,
and a negative inc starts from the end (element i at [(n-1-i)*|inc|]), as in BLAS. Batched pointer arrays
are lists of tensors; StridedBatched operands live in one tensor, batch b starting at b*stride. Host
scalars alpha/beta are Python numbers (complex for C/Z). Enums are strings: trans "N"/"T"/"C", uplo
"U"/"L", diag "N"/"U". Outputs are written in place; beta == 0 means y is not read. Band storage (sbmv,
tbmv): column j of the matrix is column j of A, with A(i, j) at row k+i-j (uplo U) or i-j (uplo L).
Arithmetic is done in float64/complex128 and rounded once. Self-contained once embedded in a record
(reference_impls/inline.py writes the shared helpers in).
"""

import torch

from kernelgenbench.reference_impls.shared import _mat, _op, _wide


def _index(n, inc, device, offset=0):
    """Storage positions of a BLAS vector of n elements at increment inc (negative: from the end)."""
    start = 0 if inc >= 0 else (1 - n) * inc
    return offset + start + inc * torch.arange(n, device=device)


def _vget(buf, n, inc, offset=0):
    return buf[_index(n, inc, buf.device, offset)]


def _vset(buf, n, inc, value, offset=0):
    buf[_index(n, inc, buf.device, offset)] = value.to(buf.dtype)


def _gemv_one(trans, m, n, alpha, A, lda, x, incx, beta, y, incy, offs=(0, 0, 0)):
    wide = _wide(y.dtype)
    lx, ly = (n, m) if trans == "N" else (m, n)
    if alpha == 0:
        prod = torch.zeros(ly, dtype=wide, device=y.device)
    else:
        a = _op(_mat(A, m, n, lda, offs[0]).to(wide), trans)
        prod = alpha * (a @ _vget(x, lx, incx, offs[1]).to(wide))
    out = prod if beta == 0 else prod + beta * _vget(y, ly, incy, offs[2]).to(wide)
    _vset(y, ly, incy, out, offs[2])


def gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    """y = alpha*op(A)*x + beta*y, A m x n (cublas<t>gemv)."""
    _gemv_one(trans, m, n, alpha, A, lda, x, incx, beta, y, incy)


def gemv_batched(trans, m, n, alpha, Aarray, lda, xarray, incx, beta, yarray, incy, batchCount):
    """gemv on each triple of the pointer arrays (cublas<t>gemvBatched)."""
    for b in range(batchCount):
        _gemv_one(trans, m, n, alpha, Aarray[b], lda, xarray[b], incx, beta, yarray[b], incy)


def gemv_strided_batched(trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta, y, incy, stridey,
                         batchCount):
    """gemv on operands b*stride apart in one buffer each (cublas<t>gemvStridedBatched)."""
    for b in range(batchCount):
        _gemv_one(trans, m, n, alpha, A, lda, x, incx, beta, y, incy, (b * strideA, b * stridex, b * stridey))


def _rank1(m, n, alpha, x, incx, y, incy, A, lda, conj):
    wide = _wide(A.dtype)
    xv = _vget(x, m, incx).to(wide)
    yv = _vget(y, n, incy).to(wide)
    Av = _mat(A, m, n, lda)
    out = Av.to(wide) + alpha * torch.outer(xv, yv.conj() if conj else yv)
    Av.copy_(out.to(A.dtype))


def ger(m, n, alpha, x, incx, y, incy, A, lda):
    """A = alpha*x*y^T + A (cublasSger, cublasCgeru)."""
    _rank1(m, n, alpha, x, incx, y, incy, A, lda, conj=False)


def gerc(m, n, alpha, x, incx, y, incy, A, lda):
    """A = alpha*x*y^H + A (cublas<t>gerc)."""
    _rank1(m, n, alpha, x, incx, y, incy, A, lda, conj=True)


def _full_symmetric(a, uplo):
    t = torch.triu(a) if uplo == "U" else torch.tril(a)
    return t + t.transpose(0, 1) - torch.diag_embed(torch.diagonal(t))


def symv(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
    """y = alpha*A*x + beta*y with A symmetric (not Hermitian), only its `uplo` triangle read."""
    wide = _wide(y.dtype)
    a = _full_symmetric(_mat(A, n, n, lda).to(wide), uplo)
    prod = alpha * (a @ _vget(x, n, incx).to(wide))
    out = prod if beta == 0 else prod + beta * _vget(y, n, incy).to(wide)
    _vset(y, n, incy, out)


def _band_diagonals(A, n, k, lda, uplo, wide):
    """(d, rows, cols, values) of each stored diagonal: A(rows, cols) for the d-th off-diagonal (0 = main).

    Band storage keeps column j of the matrix in column j of A: A(i, j) at row k+i-j (uplo U) or i-j (L).
    Working diagonal by diagonal keeps the cost O(n*k) (a 10^6 x 10^6 band matrix is never densified).
    """
    band = _mat(A, k + 1, n, lda).to(wide)
    j = torch.arange(n, device=A.device)
    for d in range(min(k, n - 1) + 1):
        cols = j[d:] if uplo == "U" else j[: n - d]
        rows = cols - d if uplo == "U" else cols + d
        yield d, rows, cols, band[k - d if uplo == "U" else d, cols]


def sbmv(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    """y = alpha*A*x + beta*y, A symmetric banded with k off-diagonals, `uplo` triangle in band storage."""
    wide = _wide(y.dtype)
    xv = _vget(x, n, incx).to(wide)
    acc = torch.zeros(n, dtype=wide, device=y.device)
    for d, rows, cols, vals in _band_diagonals(A, n, k, lda, uplo, wide):
        acc.index_add_(0, rows, vals * xv[cols])
        if d:  # the mirrored element A(cols, rows) of the symmetric matrix
            acc.index_add_(0, cols, vals * xv[rows])
    prod = alpha * acc
    out = prod if beta == 0 else prod + beta * _vget(y, n, incy).to(wide)
    _vset(y, n, incy, out)


def tbmv(uplo, trans, diag, n, k, A, lda, x, incx):
    """x = op(A)*x, A triangular banded with k off-diagonals in band storage (diag U: unit diagonal)."""
    if trans not in ("N", "T", "C"):
        raise ValueError(f"trans must be 'N', 'T' or 'C', not {trans!r}")
    wide = _wide(x.dtype)
    xv = _vget(x, n, incx).to(wide)
    acc = torch.zeros(n, dtype=wide, device=x.device)
    for d, rows, cols, vals in _band_diagonals(A, n, k, lda, uplo, wide):
        if d == 0 and diag == "U":
            vals = torch.ones_like(vals)
        if trans == "N":
            acc.index_add_(0, rows, vals * xv[cols])
        else:  # op(A)(cols, rows) = A(rows, cols), conjugated for C
            acc.index_add_(0, cols, (vals.conj() if trans == "C" else vals) * xv[rows])
    _vset(x, n, incx, acc)


def _unit(t, diag):
    if diag == "U":
        t = t - torch.diag_embed(torch.diagonal(t)) + torch.eye(t.shape[0], dtype=t.dtype, device=t.device)
    return t


def trsv(uplo, trans, diag, n, A, lda, x, incx):
    """Solve op(A)*z = x for z, written over x; A triangular (`uplo` triangle read, unit diagonal if diag U)."""
    wide = _wide(x.dtype)
    full = _mat(A, n, n, lda).to(wide)
    t = _op(_unit(torch.triu(full) if uplo == "U" else torch.tril(full), diag), trans)
    upper = (uplo == "U") == (trans == "N")
    rhs = _vget(x, n, incx).to(wide)[:, None]
    _vset(x, n, incx, torch.linalg.solve_triangular(t, rhs, upper=upper)[:, 0])


def syr2(uplo, n, alpha, x, incx, y, incy, A, lda):
    """A = alpha*(x*y^T + y*x^T) + A on the `uplo` triangle of A only."""
    wide = _wide(A.dtype)
    xv = _vget(x, n, incx).to(wide)
    yv = _vget(y, n, incy).to(wide)
    Av = _mat(A, n, n, lda)
    out = Av.to(wide) + alpha * (torch.outer(xv, yv) + torch.outer(yv, xv))
    keep = torch.ones((n, n), dtype=torch.bool, device=A.device)
    keep = torch.triu(keep) if uplo == "U" else torch.tril(keep)
    Av.copy_(torch.where(keep, out.to(A.dtype), Av))


cublasCgemv_v2 = gemv
cublasDgemv_v2 = gemv
cublasCgemvBatched_64 = gemv_batched
cublasDgemvBatched = gemv_batched
cublasSgemvBatched = gemv_batched
cublasZgemvBatched = gemv_batched
cublasCgemvStridedBatched = gemv_strided_batched
cublasDgemvStridedBatched = gemv_strided_batched
cublasSgemvStridedBatched = gemv_strided_batched
cublasZgemvStridedBatched = gemv_strided_batched
cublasCgeru_v2 = ger
cublasSger_v2 = ger
cublasZgerc_v2 = gerc
cublasCsymv_v2 = symv
cublasDsbmv_v2 = sbmv
cublasDsyr2_v2 = syr2
cublasStbmv_v2 = tbmv
cublasStrsv_v2 = trsv
