# kgb-honest: task=aten/sum.dim_IntList
"""Style: compensated (Kahan-Babuska) row sum with tl.reduce and a custom @triton.jit combine function over
(sum, compensation) pairs, as precision-sensitive reductions (e.g. in triton_kernels / apex) do; several rows
per program (ROWS constexpr), rows from a permute+contiguous copy."""
import torch
import triton
import triton.language as tl


@triton.jit
def _kahan_combine(s1, c1, s2, c2):
    t = s1 + s2
    big = tl.abs(s1) >= tl.abs(s2)
    err = tl.where(big, (s1 - t) + s2, (s2 - t) + s1)
    return t, c1 + c2 + err


@triton.jit
def _rows_sum(x_ptr, out_ptr, rows, cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    s = tl.zeros((ROWS, BLOCK), dtype=tl.float32)
    c = tl.zeros((ROWS, BLOCK), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        mask = (r[:, None] < rows) & (offs[None, :] < cols)
        v = tl.load(x_ptr + r[:, None].to(tl.int64) * cols + offs[None, :], mask=mask, other=0.0).to(tl.float32)
        s, c = _kahan_combine(s, c, v, tl.zeros_like(v))
    total, comp = tl.reduce((s, c), 1, _kahan_combine)
    tl.store(out_ptr + r, (total + comp).to(out_ptr.dtype.element_ty), mask=r < rows)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or (self.dtype if (self.dtype.is_floating_point or self.dtype.is_complex) else torch.int64)
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows if rows else 0
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    if rows == 0:
        return out.view(shape)
    if cols == 0:
        return out.zero_().view(shape)
    block = min(256, triton.next_power_of_2(cols))
    per = max(1, min(16, 1024 // block))
    _rows_sum[(triton.cdiv(rows, per),)](x, out, rows, cols, ROWS=per, BLOCK=block)
    return out.view(shape)
