# kgb-honest: task=aten/sum.dim_IntList
"""sum.dim_IntList through a segmented-sum kernel (shared with a ragged variant): segment i is
x[offsets[i]:offsets[i+1]] of the reduced dims moved last and flattened; dense rows give offsets r * cols."""
import torch
import triton
import triton.language as tl


@triton.jit
def _segment_sum_kernel(x_ptr, offsets_ptr, out_ptr, BLOCK: tl.constexpr):
    seg = tl.program_id(0)
    start = tl.load(offsets_ptr + seg)
    end = tl.load(offsets_ptr + seg + 1)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(start, end, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < end, other=0.0).to(tl.float32)
    tl.store(out_ptr + seg, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % nd for d in dim}) if (dim and nd) else list(range(nd))
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or self.dtype
    if not out_dtype.is_floating_point:
        raise NotImplementedError("sum: floating dtypes only")
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows if rows else 0
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    if rows:
        offsets = torch.tensor([r * cols for r in range(rows + 1)], dtype=torch.int64, device=self.device)
        _segment_sum_kernel[(rows,)](x, offsets, out, BLOCK=256)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
