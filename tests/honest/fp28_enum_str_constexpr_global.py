# kgb-honest: task=aten/mul.Tensor
"""An IntEnum with its own `__str__` (for logs) as a constexpr global the kernel branches on: the kernel formats no
text, so nothing runs the enum's `__str__` inside it."""
import enum

import torch
import triton
import triton.language as tl


class Op(enum.IntEnum):
    MUL = 0
    ADD = 1

    def __str__(self):
        return f"Op.{self.name.lower()}"


OP = tl.constexpr(Op.MUL)


@triton.jit
def _binary_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if OP == 0:  # Op.MUL (the class itself is no constexpr a kernel may name)
        out = x * y
    else:
        out = x + y
    tl.store(out_ptr + offs, out, mask=mask)


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x = x.to(dtype).contiguous()
    y = y.to(dtype).contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        _binary_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
