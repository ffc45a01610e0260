# kgb-honest: task=aten/_softmax
"""Inductor-generated style softmax (persistent reduction, one row per program): the row max uses
tl.maximum(a, b, tl.PropagateNan.ALL), exactly as torch._inductor's codegen emits ops.maximum."""
import torch
import triton
import triton.language as tl


@triton.jit
def triton_per_fused__softmax_0(in_ptr0, out_ptr2, xnumel, rnumel, RBLOCK: tl.constexpr):
    xoffset = tl.program_id(0)
    rindex = tl.arange(0, RBLOCK)
    rmask = rindex < rnumel
    tmp0 = tl.load(in_ptr0 + (rindex + rnumel * xoffset), rmask, other=float("-inf")).to(tl.float32)
    tmp1 = tl.full([RBLOCK], float("-inf"), tl.float32)
    tmp2 = tl.maximum(tmp0, tmp1, tl.PropagateNan.ALL)
    tmp3 = tl.max(tmp2, 0)
    tmp4 = tl.exp(tmp0 - tmp3)
    tmp5 = tl.where(rmask, tmp4, 0.0)
    tmp6 = tl.sum(tmp5, 0)
    tl.store(out_ptr2 + (rindex + rnumel * xoffset), (tmp4 / tmp6).to(out_ptr2.dtype.element_ty), rmask)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.reshape(1) if self.dim() == 0 else self.movedim(dim, -1).contiguous()
    n = x.shape[-1]
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    rows = x.numel() // n if n else 0
    if rows:
        triton_per_fused__softmax_0[(rows,)](x, out, rows, n, RBLOCK=triton.next_power_of_2(n))
    return out.reshape(()) if self.dim() == 0 else out.movedim(-1, dim)
