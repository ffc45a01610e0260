# kgb-honest: task=aten/add.Tensor
"""Style: JIT combine functions passed as tl.constexpr (as triton's reduce combine_fn / Liger activation
functions), chosen from a dict by name, alpha passed only when alpha != 1."""
import torch
import triton
import triton.language as tl


@triton.jit
def _plain_add(x, y, alpha):
    return x + y


@triton.jit
def _scaled_add(x, y, alpha):
    return x + alpha * y


_COMBINE = {"plain": _plain_add, "scaled": _scaled_add}


@triton.jit
def _ew_kernel(x_ptr, y_ptr, out_ptr, n, alpha, FN: tl.constexpr, CT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(CT)
    y = tl.load(y_ptr + offs, mask=mask).to(CT)
    tl.store(out_ptr + offs, FN(x, y, alpha).to(out_ptr.dtype.element_ty), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        ct = tl.float64 if dtype == torch.float64 else (tl.float32 if dtype.is_floating_point else tl.int64)
        fn = _COMBINE["plain" if alpha == 1 else "scaled"]
        a = float(alpha) if dtype.is_floating_point else int(alpha)
        _ew_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, a, FN=fn, CT=ct, BLOCK=1024)
    return out
