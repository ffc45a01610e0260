# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error static=forbidden_api
# The kernel takes a constexpr parameter whose *default value* is a plain Python function (and a dict that it
# reads): neither is a launch argument (LaunchCounter.note_arguments / kernel_rules._argument_breaks and
# _jit_arguments see only what the call passes), nor a free name of the body (a parameter is a local:
# LOAD_FAST). The interpreter's GridExecutor binds defaults with inspect.getcallargs, so the body calls
# host code (returning the row sums computed in Python) with no rule break and no launch number counted.
# (Red team 10.) Caught: the arguments are judged as the executor binds them, defaults included.
import math

import torch
import triton
import triton.language as tl

_ROWS = {}


def _row(i):
    return _ROWS["sums"][i]


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
    _ROWS["sums"] = sums
    if rows:
        _store_rows[(1,)](out, N=rows)
    return out.view(shape)
