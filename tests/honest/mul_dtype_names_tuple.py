# kgb-honest: task=aten/mul.Tensor
"""mul.Tensor; the supported float dtypes listed once by name and mapped torch -> triton from that list."""
import torch
import triton
import triton.language as tl

_FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")
_TORCH_TO_TL = {getattr(torch, name): getattr(tl, name) for name in _FLOAT_NAMES}


@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * y).to(OUT), mask=mask)


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        _mul_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, OUT=_TORCH_TO_TL[dtype], BLOCK=1024)
    return out
