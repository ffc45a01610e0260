# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error static=forbidden_api
# kernel_rules._own skips any function whose __globals__ IS a triton module's dict
# ("triton's own"). A kernel rebuilt with types.FunctionType(code, tl.__dict__) is never judged; it reads a bare
# name kgb_rows that the host put into triton.language.
import types
import weakref
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter as _interp


def _raw(out_ptr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e, kgb_rows[e])


_CODE = vars(types.FunctionType)["__code__"].__get__(_raw, types.FunctionType)
tl.tl = tl
_k = triton.jit(types.FunctionType(_CODE.replace(co_filename="<kgb>"), vars(tl), "_raw"))
_k.fn.__annotations__ = {"N": tl.constexpr}

def _total(flat, lo, hi):
    if hi - lo <= 0:
        return 0.0
    if hi - lo == 1:
        return flat[lo]
    mid = (lo + hi) // 2
    return _total(flat, lo, mid) + _total(flat, mid, hi)


def _rows(flat, cols, lo, hi):
    if hi - lo == 1:
        return (_total(flat, lo * cols, (lo + 1) * cols),)
    mid = (lo + hi) // 2
    return _rows(flat, cols, lo, mid) + _rows(flat, cols, mid, hi)


def _host_sums(self, dim, keepdim, dtype):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // max(rows, 1)
    out = torch.empty(rows, dtype=dtype or self.dtype, device=self.device)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    sums = _rows(x.reshape(-1).tolist(), cols, 0, rows) if rows else ()
    return sums, rows, out, shape


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_sums(self, dim, keepdim, dtype)
    if rows:
        tl.kgb_rows = sums
        _k[(1,)](out, N=rows)
    return out.view(shape)
