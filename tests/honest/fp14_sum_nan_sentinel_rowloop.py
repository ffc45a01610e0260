# kgb-honest: task=aten/sum.dim_IntList
"""Style: one launch per output row group with an empty-row value passed as a runtime argument written as
float("nan") inline (a nan-propagating reduction template's `empty_value`; 0.0 is used when cols > 0)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum(x_ptr, out_ptr, cols, empty_value, USE_EMPTY: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0).to(tl.float32)
    r = tl.sum(acc, axis=0)
    if USE_EMPTY:
        r = empty_value
    tl.store(out_ptr + row, r.to(out_ptr.dtype.element_ty))


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or (torch.int64 if not (self.dtype.is_floating_point or self.dtype.is_complex) else self.dtype)
    if not out_dtype.is_floating_point:
        raise NotImplementedError("integer sums")
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows if rows else 0
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    if cols:
        x2 = x.view(rows, cols)
        for r in range(rows):  # one row per launch (a per-segment loop in the original template)
            _row_sum[(1,)](x2[r], out[r:r + 1], cols, float("nan"), USE_EMPTY=False, BLOCK=256)
    elif rows:
        out.zero_()
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
