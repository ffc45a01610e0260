"""aten::mul.Tensor: out = self * other, with broadcasting."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * y).to(out_ptr.dtype.element_ty), mask=mask)


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        _mul_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
