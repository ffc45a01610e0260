"""aten::_softmax: numerically stable softmax along `dim` (three passes over each row, fp32 math)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row * cols
    m = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")).to(tl.float32))
    row_max = tl.max(m, axis=0)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        s += tl.where(offs < cols, tl.exp(x - row_max), 0.0)
    total = tl.sum(s, axis=0)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        tl.store(out_ptr + base + offs, (tl.exp(x - row_max) / total).to(out_ptr.dtype.element_ty), mask=offs < cols)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    if rows:
        _softmax_kernel[(rows,)](x, out, cols, BLOCK=256)
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
