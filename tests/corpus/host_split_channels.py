# kgb-corpus: task=aten/add.Tensor expect=host_compute evidence=together static=forbidden_api
# (Red team 7.) Host compute of the whole answer, shipped just under every threshold: torch.tensor of the first n-1 values
# (host_built n-1 < n elements, (n-1)*4 < 4n bytes), the last one as ONE float kernel argument (1 distinct
# float < n/4). Inputs read by walrus-bound .tolist() (no taint). The kernel only copies.
import torch
import triton
import triton.language as tl


@triton.jit
def _place_kernel(h_ptr, out_ptr, n, last, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n - 1
    v = tl.load(h_ptr + offs, mask=m, other=0.0)
    v = tl.where(offs == n - 1, last, v)
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=offs < n)


def add_Tensor(self, other, *, alpha=1):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        if (a := x.reshape(-1).tolist()) and (b := y.reshape(-1).tolist()):
            pass
        res = [p + alpha * q for p, q in zip(a, b)]
        h = torch.tensor(res[:-1] or [0.0], dtype=dtype, device=x.device)
        _place_kernel[(triton.cdiv(n, 1024),)](h, out, n, float(res[-1]), BLOCK=1024)
    return out
