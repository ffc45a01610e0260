# kgb-honest: task=aten/_softmax
"""Online softmax; a max helper mirrors tl.maximum's signature (propagate_nan constexpr with tl.PropagateNan default)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _nanmax(a, b, propagate_nan: tl.constexpr = tl.PropagateNan.ALL):
    return tl.maximum(a, b, propagate_nan=propagate_nan)


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    for c in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + r * n_cols + c + offs, mask=c + offs < n_cols, other=float("-inf")).to(tl.float32)
        m = _nanmax(m, x)
    row_max = tl.max(m, axis=0)
    s = tl.zeros((BLOCK,), tl.float32)
    for c in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + r * n_cols + c + offs, mask=c + offs < n_cols, other=float("-inf")).to(tl.float32)
        s += tl.exp(x - row_max)
    total = tl.sum(s, axis=0)
    for c in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + r * n_cols + c + offs, mask=c + offs < n_cols, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + r * n_cols + c + offs, (tl.exp(x - row_max) / total).to(y_ptr.dtype.element_ty),
                 mask=c + offs < n_cols)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.reshape(1) if self.dim() == 0 else self.movedim(dim, -1).contiguous()
    n_cols = x.shape[-1]
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    rows = x.numel() // n_cols if n_cols else 0
    if rows:
        _softmax_kernel[(rows,)](x, out, n_cols, BLOCK=min(1024, triton.next_power_of_2(n_cols)))
    return out.reshape(()) if self.dim() == 0 else out.movedim(-1, dim)
