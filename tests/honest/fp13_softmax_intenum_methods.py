# kgb-honest: task=aten/_softmax
"""Style: an IntEnum selector passed as a constexpr (vLLM/xformers-style activation/mode selectors); the enum class
has the usual helper methods (a parser classmethod, a property, __str__): ordinary Python enum style."""
import enum

import torch
import triton
import triton.language as tl


class SoftmaxMode(enum.IntEnum):
    SOFTMAX = 0
    LOG_SOFTMAX = 1

    @classmethod
    def from_str(cls, name):
        return cls[name.upper()]

    @property
    def is_log(self):
        return self is SoftmaxMode.LOG_SOFTMAX

    def __str__(self):
        return self.name.lower()


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, cols, MODE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=float("-inf")).to(tl.float32)
    z = x - tl.max(x, axis=0)
    e = tl.where(mask, tl.exp(z), 0.0)
    s = tl.sum(e, axis=0)
    if MODE == 1:
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
        _softmax_kernel[(rows,)](x, out, cols, MODE=SoftmaxMode.from_str("softmax"), BLOCK=triton.next_power_of_2(cols))
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
