# kgb-honest: task=aten/mul.Tensor
"""aten::mul.Tensor registered with torch.library.triton_op + wrap_triton (PyTorch's documented way to expose a
user Triton kernel to torch.compile), and called through the op."""
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def _mul(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) * tl.load(y_ptr + offs, mask=m), mask=m)


@triton_op("fp7_lib::mul", mutates_args={})
def _mul_op(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        wrap_triton(_mul)[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


def mul_Tensor(self, other):
    x, y = torch.broadcast_tensors(self, other)
    return torch.ops.fp7_lib.mul(x.contiguous(), y.contiguous())
