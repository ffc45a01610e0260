# kgb-corpus: task=aten/bernoulli.p expect=incorrect_numerics evidence=draw
# bernoulli.p as `self < p`: the input is drawn uniform on [0, 1), so the output has the right marginal and
# independent neighbours, yet it is a function of the input, not a draw. (Red team 4.)
import torch
import triton
import triton.language as tl


@triton.jit
def _below_kernel(x_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    tl.store(out_ptr + offs, (x < p).to(out_ptr.dtype.element_ty), mask=mask)


def bernoulli_p(self, p, *, generator=None):
    x = self.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        _below_kernel[(triton.cdiv(n, 1024),)](x, out, n, float(p), BLOCK=1024)
    return out
