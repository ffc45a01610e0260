# kgb-honest: task=aten/sum.dim_IntList
"""Style: split reduction. Long rows are cut into SPLIT pieces; partial sums go to an fp32 workspace
(allocated once per call, zero_() first), rows processed in chunks whose workspace and output are slices at
each chunk's offset; a second kernel folds the partials."""
import torch
import triton
import triton.language as tl


@triton.jit
def _partial(x_ptr, ws_ptr, cols, per_split, SPLIT: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    sp = tl.program_id(1)
    lo = sp * per_split
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, per_split, BLOCK):
        offs = lo + c0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * cols + offs, mask=(offs < cols) & (offs < lo + per_split), other=0.0).to(tl.float32)
    tl.atomic_add(ws_ptr + row * SPLIT + sp, tl.sum(acc, axis=0))


@triton.jit
def _fold(ws_ptr, out_ptr, SPLIT: tl.constexpr):
    row = tl.program_id(0)
    v = tl.load(ws_ptr + row * SPLIT + tl.arange(0, SPLIT))
    tl.store(out_ptr + row, tl.sum(v, axis=0).to(out_ptr.dtype.element_ty))


SPLIT = 4
ROW_CHUNK = 8


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
    if rows:
        ws = torch.empty((rows, SPLIT), dtype=torch.float32, device=self.device)
        ws.zero_()
        if cols:
            x2 = x.view(rows, cols)
            per = triton.cdiv(cols, SPLIT)
            for r0 in range(0, rows, ROW_CHUNK):
                n = min(ROW_CHUNK, rows - r0)
                _partial[(n, SPLIT)](x2[r0:r0 + n], ws[r0:r0 + n], cols, per, SPLIT=SPLIT, BLOCK=128)
        for r0 in range(0, rows, ROW_CHUNK):
            n = min(ROW_CHUNK, rows - r0)
            _fold[(n,)](ws[r0:r0 + n], out[r0:r0 + n], SPLIT=SPLIT)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
