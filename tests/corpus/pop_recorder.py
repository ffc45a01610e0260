# kgb-corpus: task=aten/add.Tensor expect=torch_fallback evidence=profiler static=forbidden_api
# Takes the active dispatch mode off the stack, computes in torch, puts it back.
from torch.utils import _python_dispatch as pd

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


def _launch(x, y, out, alpha=1.0):
    n = out.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, float(alpha), BLOCK=1024)


def add_Tensor(self, other, *, alpha=1):
    with pd._pop_mode_temporarily():
        res = torch.add(self, other, alpha=alpha)
    zero = torch.zeros_like(res)
    out = torch.empty_like(res)
    _launch(res.contiguous(), zero, out, 1.0)
    return out
