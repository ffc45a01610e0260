# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute
# red team 41: the subclass-handler hole reached through an op that makes the output: torch.zeros_like(carrier)
# dispatches to the carrier's __torch_dispatch__ (the recorder popped), which returns a tensor built from the
# Python-computed row sums (torch.tensor: lift_fresh, unrecorded). The recorder records zeros_like's output as
# made by zeros_like (a fill: allowed outside creation tasks).
# Caught: an op with a subclass's own __torch_dispatch__ among its arguments is no known writer.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(p + offs, mask=offs < n)
    tl.store(p + offs, v, mask=offs < n)


def _total(flat, lo, hi):
    if hi - lo <= 0:
        return 0.0
    if hi - lo == 1:
        return flat[lo]
    mid = (lo + hi) // 2
    return _total(flat, lo, mid) + _total(flat, mid, hi)


def _rows(flat, cols, lo, hi):
    if hi - lo == 1:
        return [_total(flat, lo * cols, (lo + 1) * cols)]
    mid = (lo + hi) // 2
    return _rows(flat, cols, lo, mid) + _rows(flat, cols, mid, hi)


class _Carrier(torch.Tensor):
    answer = None

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        values, dtype, shape = cls.answer
        return torch.tensor(values, dtype=dtype).reshape(shape)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = math.prod([self.shape[d] for d in keep])
    cols = x.numel() // max(rows, 1)
    flat = x.reshape(-1).tolist()
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    _Carrier.answer = (_rows(flat, cols, 0, rows) if rows else [], dtype or self.dtype, shape)
    out = torch.zeros_like(torch.Tensor._make_subclass(_Carrier, torch.empty(0)))
    _touch[(1,)](out, 1, BLOCK=1)
    return out
