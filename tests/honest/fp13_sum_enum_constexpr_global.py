# kgb-honest: task=aten/sum.dim_IntList
"""Style: Liger-style casting-mode constants, but as an IntEnum (with a parser classmethod) whose members are held
in module-level tl.constexpr globals the kernel compares against; the mode is passed as its int value."""
import enum

import torch
import triton
import triton.language as tl


class AccMode(enum.IntEnum):
    NATIVE = 0
    FP32 = 1

    @classmethod
    def parse(cls, s):
        return cls[s.upper()]


_ACC_NATIVE = tl.constexpr(AccMode.NATIVE)
_ACC_FP32 = tl.constexpr(AccMode.FP32)


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, cols, MODE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
        if MODE == _ACC_FP32:
            v = v.to(tl.float32)
        acc += v
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or (torch.int64 if not (self.dtype.is_floating_point or self.dtype.is_complex) else self.dtype)
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows if rows else 0
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    if rows:
        if cols:
            _row_sum_kernel[(rows,)](x, out, cols, MODE=int(AccMode.parse("fp32")), BLOCK=128)
        else:
            out.zero_()
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
