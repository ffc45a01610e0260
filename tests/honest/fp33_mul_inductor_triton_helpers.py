# kgb-honest: task=aten/mul.Tensor
"""aten::mul.Tensor written the way Inductor's generated kernels are: its Triton helpers (triton_helpers.maximum,
promote_to_tensor), xindex/xmask names, one pointwise program per XBLOCK."""
import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers


@triton.jit
def triton_poi_fused_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = triton_helpers.maximum(tmp0 * tmp1, tmp0 * tmp1)
    tmp3 = triton_helpers.promote_to_tensor(tmp2)
    tl.store(out_ptr0 + (x0), tmp3, xmask)


def mul_Tensor(self, other):
    x, y = torch.broadcast_tensors(self, other)
    dt = torch.result_type(self, other)
    x, y = x.to(dt).contiguous(), y.to(dt).contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        triton_poi_fused_mul_0[(triton.cdiv(n, 256),)](x, y, out, n, XBLOCK=256)
    return out
