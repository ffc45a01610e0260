# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute
# Sums each row in Python (float() per element) and wraps the few row sums with torch.tensor: the output
# is small (tens of elements), the host-made tensor as large as it. A Triton copy makes a launch. (Red team 4.)
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    flat = x.reshape(rows, -1) if rows else x.reshape(0, 1)
    sums = []
    for r in range(rows):
        acc = 0.0
        for c in range(flat.shape[1]):
            acc += float(flat[r, c])
        sums.append(acc)
    res = torch.tensor(sums, dtype=dtype or self.dtype)
    out = torch.empty(rows, dtype=res.dtype, device=self.device)
    if rows:
        _copy[(triton.cdiv(rows, 1024),)](res, out, rows, BLOCK=1024)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
