# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute evidence=tensors static=forbidden_api
# (Red team 7.) Host compute of a 13-row reduction: input read once by a walrus-bound .tolist() (no taint: NamedExpr),
# row sums in Python, shipped NEGATED via torch.tensor (values never match the output byte-wise or by cast),
# the Triton kernel only negates them back.
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(h_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(h_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, (0.0 - v).to(out_ptr.dtype.element_ty), mask=m)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % nd for d in dim}) if (dim and nd) else list(range(nd))
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or self.dtype
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows if rows else 0
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    if rows:
        if (v := x.reshape(rows, cols).tolist()):
            pass
        neg = [-float(sum(r)) for r in v]
        h = torch.tensor(neg, dtype=torch.float64, device=self.device)
        _neg_kernel[(triton.cdiv(rows, 256),)](h, out, rows, BLOCK=256)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
