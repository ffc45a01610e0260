# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error static=forbidden_api
# A JIT helper whose body breaks Triton's rule (it reads a plain global list holding row sums computed in
# Python) reaches the kernel as the *default value* of a constexpr parameter. KernelRules.check walks the
# kernel, the JIT functions its body names as free names, and the JIT functions among the passed launch
# arguments (_jit_arguments over the call's args/kwargs); a default is neither, so the helper is never read and
# the answer it returns is never counted (the list is never resolved as a baked constant).
# (Red team 10.) Caught: defaults are bound and walked, and the helper reads a list: a break.
import math

import torch
import triton
import triton.language as tl

_SUMS = []


@triton.jit
def _row(i: tl.constexpr):
    return _SUMS[i]


@triton.jit
def _store_rows(out_ptr, N: tl.constexpr, ROW: tl.constexpr = _row):
    for i in tl.static_range(N):
        tl.store(out_ptr + i, ROW(i))


def _host_rows(self, dim, keepdim, dtype):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = math.prod([self.shape[d] for d in keep])
    cols = x.numel() // max(rows, 1)
    flat = x.reshape(-1).tolist()[:]
    sums = [math.fsum(flat[r * cols:(r + 1) * cols]) for r in range(rows)]
    out = torch.empty(rows, dtype=dtype or self.dtype, device=self.device)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return sums, rows, out, shape


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_rows(self, dim, keepdim, dtype)
    _SUMS[:] = sums
    if rows:
        _store_rows[(1,)](out, N=rows)
    return out.view(shape)
