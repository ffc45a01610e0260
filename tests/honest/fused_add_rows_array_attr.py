# kgb-honest: task=vllm/fused_add_rms_norm
"""vLLM fused_add_rms_norm; each 2-D operand wrapped in a tiny `_Rows` record (the array and its row stride)."""
from dataclasses import dataclass

import torch
import triton
import triton.language as tl


@dataclass
class _Rows:
    array: torch.Tensor

    @classmethod
    def of(cls, t: torch.Tensor) -> "_Rows":
        hidden = t.shape[-1]
        return cls(t.view(-1, hidden) if t.dim() == 2 else t.reshape(-1, hidden))

    @property
    def count(self) -> int:
        return self.array.shape[0]

    @property
    def stride(self) -> int:
        return self.array.stride(0)


@triton.jit
def _kernel(x_ptr, r_ptr, w_ptr, hidden, xs, rs, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < hidden
    x = tl.load(x_ptr + row * xs + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * rs + offs, mask=mask, other=0.0).to(tl.float32)
    z = (x + r).to(r_ptr.dtype.element_ty)
    tl.store(r_ptr + row * rs + offs, z, mask=mask)
    z32 = z.to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(z32 * z32, axis=0) / hidden + eps)
    y = (z32 * inv).to(x_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(x_ptr + row * xs + offs, (y * w).to(x_ptr.dtype.element_ty), mask=mask)


def fused_add_rms_norm(input, residual, weight, epsilon):
    x, r = _Rows.of(input), _Rows.of(residual)
    if x.count == 0:
        return
    hidden = x.array.shape[1]
    _kernel[(x.count,)](x.array, r.array, weight, hidden, x.stride, r.stride, float(epsilon),
                        BLOCK=triton.next_power_of_2(hidden))
