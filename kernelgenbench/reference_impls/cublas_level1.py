"""Reference semantics of the curated cuBLAS level-1 routines (axpy, scal, copy, swap, dot/dotu/dotc, asum).

Calling convention (the candidate's): the routine's C arguments without the handle. Vectors are 1-D
device tensors read at stride inc; a negative inc starts from the end (element i at [(n-1-i)*|inc|]), as
in BLAS. Host scalars (alpha) are Python numbers (complex for C/Z). Outputs are written in place. Scalar
results (dot, asum) go to `result`, a 1-element device tensor of the routine's result type, written in
place (cuBLAS's device pointer mode). Arithmetic is done in float64/complex128 and rounded once.
Self-contained once embedded in a record (reference_impls/inline.py writes the shared helpers in).
"""

import torch

from kernelgenbench.reference_impls.shared import _wide


def _index(n, inc, device):
    start = 0 if inc >= 0 else (1 - n) * inc
    return start + inc * torch.arange(n, device=device)


def _vget(buf, n, inc):
    return buf[_index(n, inc, buf.device)]


def _vset(buf, n, inc, value):
    buf[_index(n, inc, buf.device)] = value.to(buf.dtype)


def axpy(n, alpha, x, incx, y, incy):
    """y = alpha*x + y."""
    if n <= 0:
        return
    wide = _wide(y.dtype)
    _vset(y, n, incy, alpha * _vget(x, n, incx).to(wide) + _vget(y, n, incy).to(wide))


def scal(n, alpha, x, incx):
    """x = alpha*x (incx > 0 per BLAS)."""
    if n <= 0 or incx <= 0:
        return
    _vset(x, n, incx, alpha * _vget(x, n, incx).to(_wide(x.dtype)))


def copy(n, x, incx, y, incy):
    """y = x."""
    if n <= 0:
        return
    _vset(y, n, incy, _vget(x, n, incx))


def swap(n, x, incx, y, incy):
    """x <-> y."""
    if n <= 0:
        return
    xv = _vget(x, n, incx).clone()
    _vset(x, n, incx, _vget(y, n, incy))
    _vset(y, n, incy, xv)


def _dot(n, x, incx, y, incy, result, conj):
    wide = _wide(result.dtype)
    if n <= 0:
        result.zero_()
        return
    xv = _vget(x, n, incx).to(wide)
    value = torch.sum((xv.conj() if conj else xv) * _vget(y, n, incy).to(wide))
    result.copy_(value.reshape(result.shape).to(result.dtype))


def dot(n, x, incx, y, incy, result):
    """result = sum x[i]*y[i] (cublasSdot, cublasCdotu)."""
    _dot(n, x, incx, y, incy, result, conj=False)


def dotc(n, x, incx, y, incy, result):
    """result = sum conj(x[i])*y[i] (cublas<t>dotc)."""
    _dot(n, x, incx, y, incy, result, conj=True)


def asum(n, x, incx, result):
    """result = sum |Re x[i]| + |Im x[i]| (incx > 0 per BLAS; 0 otherwise)."""
    if n <= 0 or incx <= 0:
        result.zero_()
        return
    v = _vget(x, n, incx)
    v = torch.view_as_real(v) if v.is_complex() else v
    result.copy_(v.to(torch.float64).abs().sum().reshape(result.shape).to(result.dtype))


cublasCcopy_v2 = copy
cublasDcopy_v2 = copy
cublasCdotu_v2 = dot
cublasSdot_v2 = dot
cublasZdotc_v2 = dotc
cublasDasum_v2 = asum
cublasDaxpy_v2 = axpy
cublasSaxpy_v2 = axpy
cublasSscal_v2 = scal
cublasZswap_v2 = swap
