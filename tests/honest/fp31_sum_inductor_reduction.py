# kgb-honest: task=aten/sum.dim_IntList
"""torch inductor style reduction: triton_red_fused_sum_0 with xnumel/rnumel, XBLOCK/RBLOCK, a masked
accumulator via tl.where and tl.sum(..., 1)[:, None]; buffers from empty_strided_cpu, reinterpret at the end."""
import torch
import triton
import triton.language as tl
from torch._C import _dynamo as _d

empty_strided_cpu = _d.guards._empty_strided_cpu
reinterpret_tensor = _d.guards._reinterpret_tensor


@triton.jit
def triton_red_fused_sum_0(in_ptr0, out_ptr0, xnumel, rnumel, XBLOCK: tl.constexpr, RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    rbase = tl.arange(0, RBLOCK)[None, :]
    x0 = xindex
    _tmp2 = tl.full([XBLOCK, RBLOCK], 0, tl.float32)
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (r1 + (rnumel * x0)), rmask & xmask, eviction_policy='evict_first', other=0.0)
        tmp1 = tl.broadcast_to(tmp0, [XBLOCK, RBLOCK])
        tmp3 = _tmp2 + tmp1
        _tmp2 = tl.where(rmask & xmask, tmp3, _tmp2)
    tmp2 = tl.sum(_tmp2, 1)[:, None]
    tl.store(out_ptr0 + (x0), tmp2, xmask)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or (self.dtype if self.dtype.is_floating_point else torch.int64)
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    xnumel = 1
    for d in keep:
        xnumel *= self.shape[d]
    rnumel = x.numel() // xnumel if xnumel else 0
    buf0 = empty_strided_cpu((xnumel,), (1,), torch.float32)
    if xnumel:
        triton_red_fused_sum_0[(triton.cdiv(xnumel, 1), 1, 1)](x.to(torch.float32), buf0, xnumel, rnumel,
                                                                XBLOCK=1, RBLOCK=64)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    stride = []
    acc = 1
    for d in reversed(shape):
        stride.insert(0, acc)
        acc *= d
    res = reinterpret_tensor(buf0, tuple(shape), tuple(stride), 0)
    return res if out_dtype == torch.float32 else res.to(out_dtype)
