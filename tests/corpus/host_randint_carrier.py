# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute static=forbidden_api
# (Red team 7.) Host-computed row sums carried with NO host-made tensor at all: each sum's float64 bits become a
# torch.randint(w, w+1, (1,)) draw -- a 1-element random op, exempt from torch_fallback as a "seed", no
# lift_fresh, no small write. One launch per row bit-casts it into out[i]. Inputs read by walrus .tolist().
# (Session 21.) The runtime layers now see it first as host numbers handed to an op (randint's bounds are float-
# sized ints: sandbox/scalars.py), before the seed rule's torch_fallback.
import torch
import triton
import triton.language as tl


@triton.jit
def _bits_kernel(w_ptr, out_ptr, i):
    w = tl.load(w_ptr)
    tl.store(out_ptr + i, w.to(tl.float64, bitcast=True).to(out_ptr.dtype.element_ty))


def _bits(f):
    # float64 -> int64 bits without struct: via a float64 torch scalar? no ops: do it arithmetically
    import math
    if f == 0.0:
        return 0
    s = 1 if f < 0 else 0
    m, e = math.frexp(abs(f))  # abs(f) = m * 2**e, 0.5 <= m < 1
    e = e - 1 + 1023
    frac = int((m * 2 - 1) * (1 << 52))
    w = (e << 52) | frac
    return w - (1 << 63) if s else w  # sign bit set: negative int64


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
        for i, r in enumerate(v):
            w = _bits(float(sum(r)))
            seed = torch.randint(w, w + 1, (1,), dtype=torch.int64, device=self.device)
            _bits_kernel[(1,)](seed, out, i)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
