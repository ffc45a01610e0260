# kgb-honest: task=aten/mul.Tensor
"""mul.Tensor: a JIT op passed explicitly wrapped as tl.constexpr(fn) and called on blocks."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_op(x, y):
    return x * y


@triton.jit
def _binary_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, OP(x, y).to(out_ptr.dtype.element_ty), mask=mask)


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        _binary_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, tl.constexpr(_mul_op), BLOCK=1024)
    return out
