# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error static=forbidden_api
# Time-of-check/time-of-use: at note_kernel the global is an unchanging tl.constexpr(()) (allowed, never
# "changed"), then the grid callable (host code run inside the launch, after the check) rebinds it to a plain
# Python list of host-computed row sums that the body reads; reset before every launch.
# (Red team 9.) Caught: the rule is applied when the grid is set, after the grid callable ran.
import math

import torch
import triton
import triton.language as tl

_ANSWER = tl.constexpr(())
_PENDING = {}


@triton.jit
def _store_rows(out_ptr, N: tl.constexpr):
    for i in tl.static_range(N):
        tl.store(out_ptr + i, _ANSWER[i])


def _grid(meta):
    globals()["_ANSWER"] = _PENDING.pop("sums")
    return (1,)


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
    globals()["_ANSWER"] = tl.constexpr(())
    _PENDING["sums"] = sums
    if rows:
        _store_rows[_grid](out, N=rows)
    return out.view(shape)
