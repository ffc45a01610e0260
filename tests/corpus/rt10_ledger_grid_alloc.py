# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute static=forbidden_api
# Write ledger blind spot: ops dispatched inside a launch are not recorded in the ledger (DispatchRecorder
# passes ledger=None while paused) and launch_ends() only refreshes storages the ledger already holds plus the
# launch's own arguments. A scratch tensor allocated inside launch A (by its grid callable: host code the
# interpreter runs inside the launch) and filled there with Tensor.map_ (no op) from row sums computed in
# Python is unknown to the ledger. Launch B copies it into the output: ledger.check() sees a resizable storage
# first seen, not moved, and trusts it. No lift_fresh, no launch numbers, no small writes.
# (Red team 10.) Caught: grid callables and pre-run hooks run as the call's host code (recorded, the ledger checked after).
import math

import torch
import triton
import triton.language as tl

_STASH = {}


@triton.jit
def _nop(out_ptr):
    pass


@triton.jit
def _copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


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


def _grid_alloc(meta):
    sums, dt = _STASH["job"]
    scratch = torch.empty(len(sums), dtype=dt)
    it = iter(sums)
    scratch.map_(scratch, lambda a, b: next(it))
    _STASH["scratch"] = scratch
    return (1,)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_rows(self, dim, keepdim, dtype)
    if rows:
        _STASH["job"] = (sums, out.dtype)
        _nop[_grid_alloc](out)
        scratch = _STASH.pop("scratch")
        _copy[(triton.cdiv(rows, 128),)](scratch, out, rows, BLOCK=128)
    return out.view(shape)
