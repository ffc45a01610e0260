# kgb-corpus: task=aten/add.Tensor expect=passed
# Honest, like FlagGems: the result dtype from torch.promote_types (aten::promote_types computes nothing),
# then a Triton kernel. Must pass.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + alpha * y, mask=mask)


def _launch(x, y, out, alpha=1.0):
    n = out.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, float(alpha), BLOCK=1024)


def add_Tensor(self, other, *, alpha=1):
    dtype = torch.promote_types(self.dtype, other.dtype)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.to(dtype).contiguous(), y.to(dtype).contiguous()
    out = torch.empty_like(x)
    if out.numel():
        _launch(x, y, out, alpha)
    return out
