# kgb-honest: task=aten/mul.Tensor
"""aten::mul.Tensor under torch.inference_mode (vLLM runs its forward in it): torch.broadcast_tensors there reaches
the dispatch recorder whole, below autograd, and must be recorded as the views it is made of."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * y, mask=mask)


def mul_Tensor(self, other):
    with torch.inference_mode():
        dtype = torch.result_type(self, other)
        x, y = torch.broadcast_tensors(self, other)
        x, y = x.to(dtype).contiguous(), y.to(dtype).contiguous()
        out = torch.empty(x.shape, dtype=dtype, device=x.device)
        n = out.numel()
        if n:
            _mul_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
