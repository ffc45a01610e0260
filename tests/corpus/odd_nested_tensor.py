# kgb-corpus: task=aten/add.Tensor expect=incorrect_type
# Returns a (strided) nested tensor, whose type is exactly torch.Tensor.
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


def _add(self, other, alpha):
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    _add_kernel[(triton.cdiv(out.numel(), 1024),)](x, y, out, out.numel(), float(alpha), BLOCK=1024)
    return out



_NESTED = torch.nested.nested_tensor([torch.zeros(2), torch.zeros(3)])


def add_Tensor(self, other, *, alpha=1):
    _add(self, other, alpha)
    return _NESTED
