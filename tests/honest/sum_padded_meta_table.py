# kgb-honest: task=aten/sum.dim_IntList
"""sum.dim_IntList without a permute copy: the input is read in place through a shape/stride table.

Sizes and strides of the kept and of the reduced dims go to the kernel in one small int64 table, padded to
MAX_DIMS on the left (size 1, stride 0), the way generic strided-reduction kernels take their metadata.
"""
import torch
import triton
import triton.language as tl

MAX_DIMS = 8


@triton.jit
def _strided_sum_kernel(x_ptr, out_ptr, meta_ptr, R, MAXD: tl.constexpr, ACC: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0).to(tl.int64)
    base = o * 0
    rem = o
    for i in tl.static_range(MAXD):
        d = MAXD - 1 - i
        size = tl.load(meta_ptr + d)
        stride = tl.load(meta_ptr + MAXD + d)
        base += (rem % size) * stride
        rem = rem // size
    acc = tl.zeros((BLOCK,), dtype=ACC)
    for r0 in range(0, R, BLOCK):
        r = r0 + tl.arange(0, BLOCK).to(tl.int64)
        mask = r < R
        off = tl.zeros((BLOCK,), dtype=tl.int64)
        rr = r
        for i in tl.static_range(MAXD):
            d = MAXD - 1 - i
            size = tl.load(meta_ptr + 2 * MAXD + d)
            stride = tl.load(meta_ptr + 3 * MAXD + d)
            off += (rr % size) * stride
            rr = rr // size
        acc += tl.load(x_ptr + base + off, mask=mask, other=0).to(ACC)
    tl.store(out_ptr + o, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def _padded(values, fill):
    values = list(values)
    return [fill] * (MAX_DIMS - len(values)) + values


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    if nd > MAX_DIMS:
        raise NotImplementedError(f"sum: at most {MAX_DIMS} dims")
    dims = sorted({d % nd for d in dim}) if (dim and nd) else list(range(nd))
    keep = [d for d in range(nd) if d not in dims]
    if dtype is None:
        dtype = self.dtype if (self.dtype.is_floating_point or self.dtype.is_complex) else torch.int64
    acc = tl.float64 if dtype == torch.float64 else (tl.int64 if not dtype.is_floating_point else tl.float32)
    kept_shape = [self.shape[d] for d in keep]
    red_shape = [self.shape[d] for d in dims]
    rows = 1
    for s in kept_shape:
        rows *= s
    red = 1
    for s in red_shape:
        red *= s
    out = torch.empty(rows, dtype=dtype, device=self.device)
    if rows:
        meta = torch.tensor(_padded(kept_shape, 1) + _padded([self.stride(d) for d in keep], 0)
                            + _padded(red_shape, 1) + _padded([self.stride(d) for d in dims], 0),
                            dtype=torch.int64, device=self.device)
        _strided_sum_kernel[(rows,)](self, out, meta, red, MAXD=MAX_DIMS, ACC=acc, BLOCK=256)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else kept_shape
    return out.view(shape)
