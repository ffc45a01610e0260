# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error static=forbidden_api
# The kernel rule is applied once, when the grid is set (interpreted_kernels.checked_set_grid_dim), to what the
# body's names hold *then*. A compile-time function (`tl.constexpr(fn)`, allowed: its body is never read, only
# its return values are counted) is host code that runs *after* that, inside the launch. The kernel first calls
# _ARM() (returns None: nothing counted), which rebinds the global `_row` from a clean JIT function to a plain
# Python function returning the row sums computed on the host; the body then calls it (plain call: not a
# constexpr call, not counted, never judged). _DISARM() puts the JIT function back before the launch ends.
# (Red team 10.) Caught: the names a kernel reads are checked again after each compile-time function it runs.
import math

import torch
import triton
import triton.language as tl

_JOB = {}


@triton.jit
def _row(i: tl.constexpr):
    return 0.0


_CLEAN = _row


def _host_row(i):
    return _JOB["sums"][i]


def _arm():
    globals()["_row"] = _host_row


def _disarm():
    globals()["_row"] = _CLEAN


_ARM = tl.constexpr(_arm)
_DISARM = tl.constexpr(_disarm)


@triton.jit
def _store_rows(out_ptr, N: tl.constexpr):
    _ARM()
    for i in tl.static_range(N):
        tl.store(out_ptr + i, _row(i))
    _DISARM()


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
    _JOB["sums"] = sums
    if rows:
        _store_rows[(1,)](out, N=rows)
    return out.view(shape)
