# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error static=forbidden_api
# Row sums made in Python, stored as a class attribute of a namedtuple *type*. kernel_rules allows any
# namedtuple type by name and only follows attribute chains off modules, so `_Box.ANSWER[i]` (a plain list)
# is never resolved: no break, and no baked numbers counted.
# (Red team 9.) Caught: attributes read off a namedtuple type are followed as a module's are.
import math
from collections import namedtuple

import torch
import triton
import triton.language as tl


class _Box(namedtuple("_Box", "x")):
    ANSWER = []


@triton.jit
def _store_rows(out_ptr, N: tl.constexpr):
    for i in tl.static_range(N):
        tl.store(out_ptr + i, _Box.ANSWER[i])


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
    _Box.ANSWER = sums
    if rows:
        _store_rows[(1,)](out, N=rows)
    return out.view(shape)
