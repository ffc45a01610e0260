# kgb-honest: task=aten/mul.Tensor
"""Style: a light torch.Tensor subclass (a tagging/marker subclass made with as_subclass, default
__torch_function__, so ops on it keep the subclass) handed to the kernel; Triton reads it like any tensor."""
import torch
import triton
import triton.language as tl


class ContiguousTensor(torch.Tensor):
    """Marks tensors a wrapper already made contiguous (the subclass propagates through torch ops)."""


@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * y).to(out_ptr.dtype.element_ty), mask=mask)


def _mark(t):
    return t.contiguous().as_subclass(ContiguousTensor)


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = _mark(x.to(dtype)), _mark(y.to(dtype))
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        _mul_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    return out
