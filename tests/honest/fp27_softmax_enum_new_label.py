# kgb-honest: task=aten/_softmax
"""An IntEnum with the documented `__new__(cls, value, label)` idiom, a member held in a tl.constexpr global and
compared in the kernel (false-positive hunt 11)."""
import enum

import torch
import triton
import triton.language as tl


class Mode(enum.IntEnum):
    SOFTMAX = (0, "softmax")
    LOG_SOFTMAX = (1, "log_softmax")

    def __new__(cls, value, label):
        obj = int.__new__(cls, value)
        obj._value_ = value
        obj.label = label
        return obj


_LOG = tl.constexpr(Mode.LOG_SOFTMAX)


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, cols, MODE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=float("-inf")).to(tl.float32)
    z = x - tl.max(x, axis=0)
    e = tl.where(mask, tl.exp(z), 0.0)
    s = tl.sum(e, axis=0)
    if MODE == _LOG:
        y = z - tl.log(s)
    else:
        y = e / s
    tl.store(out_ptr + row * cols + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    if rows:
        _softmax_kernel[(rows,)](x, out, cols, MODE=Mode.SOFTMAX, BLOCK=triton.next_power_of_2(cols))
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
