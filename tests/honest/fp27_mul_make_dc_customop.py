# kgb-honest: task=aten/mul.Tensor
"""Style: dataclasses.make_dataclass for a tuning record (as config generators do), @triton.autotune with one
config plus @triton.heuristics, exposed as a torch.library.custom_op with a register_fake, called through
torch.ops under torch.no_grad()."""
import dataclasses

import torch
import triton
import triton.language as tl

Tuning = dataclasses.make_dataclass("Tuning", [("BLOCK", int, 1024), ("num_warps", int, 4)], frozen=True)
_DEFAULT = Tuning()


@triton.autotune(configs=[triton.Config({"BLOCK": _DEFAULT.BLOCK}, num_warps=_DEFAULT.num_warps)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) * tl.load(y_ptr + offs))
    else:
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * tl.load(y_ptr + offs, mask=m), mask=m)


@torch.library.custom_op("kgb_fp10::mul", mutates_args=())
def _mul_op(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    a, b = torch.broadcast_tensors(a, b)
    a, b = a.contiguous(), b.contiguous()
    out = torch.empty_like(a)
    n = out.numel()
    if n:
        _mul_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](a, b, out, n)
    return out


@_mul_op.register_fake
def _(a, b):
    return torch.empty(torch.broadcast_shapes(a.shape, b.shape), dtype=a.dtype, device=a.device)


def mul_Tensor(self, other):
    with torch.no_grad():
        return torch.ops.kgb_fp10.mul(self, other)
