# kgb-honest: task=aten/_softmax
"""h19: libdevice.isinf guard. _softmax with libdevice.exp2 (log2e scaling), tl.device_assert, tl.static_print/static_assert, print in kernel."""
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    tl.device_assert(cols > 0, "cols must be positive")
    base = row.to(tl.int64) * cols
    m = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")).to(tl.float32))
    row_max = tl.max(m, axis=0)
    row_max = tl.where(libdevice.isinf(row_max).to(tl.int1), 0.0, row_max)  # fully masked rows
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        s += tl.where(offs < cols, libdevice.exp2((x - row_max) * LOG2E), 0.0)
    total = tl.sum(s, axis=0)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        y = libdevice.exp2((x - row_max) * LOG2E) / total
        tl.store(out_ptr + base + offs, y.to(out_ptr.dtype.element_ty), mask=offs < cols)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    if rows:
        _softmax_kernel[(rows,)](x, out, cols, BLOCK=256)
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
