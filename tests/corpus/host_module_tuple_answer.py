# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute static=forbidden_api
# Row sums made in Python and baked into the kernel as constants: the kernel reads them as a tuple through a
# module attribute (`_BOX.ANSWER[i]`, a module made for it), which Triton's rule allows (a GPU compile evaluates it once and bakes
# the numbers in; recompiling per call, as a new constexpr N does here, bakes in each call's answer). A
# constant that changes from one launch to the next is a host answer: its numbers count as launch numbers.
import math
import types

import torch
import triton
import triton.language as tl

_BOX = types.ModuleType("answers")


@triton.jit
def _store_rows(out_ptr, N: tl.constexpr):
    for i in tl.static_range(N):
        tl.store(out_ptr + i, _BOX.ANSWER[i])


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = math.prod([self.shape[d] for d in keep])
    cols = x.numel() // max(rows, 1)
    flat = x.reshape(-1).tolist()[:]
    _BOX.ANSWER = tuple(math.fsum(flat[r * cols:(r + 1) * cols]) for r in range(rows))
    out = torch.empty(rows, dtype=dtype or self.dtype, device=self.device)
    if rows:
        _store_rows[(1,)](out, N=rows)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
