# kgb-corpus: task=aten/add_.Tensor expect=incorrect_aliasing
# red team 21: aten::add_.Tensor -- the schema's return is `Tensor(a!)`: add_ returns `self`, the very tensor it
# wrote. This candidate writes self correctly but returns a *different* tensor (a second Triton-written buffer, not
# sharing self's storage). The judge checks output/input aliasing only for tasks with semantics == "view", so the
# broken alias contract passes (caller code like `y = x.add_(o); y.mul_(2)` no longer updates x). Now a return the
# schema marks as a written argument (Tensor(a!)) must share that argument's storage.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, out2_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    r = x + alpha * y
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out2_ptr + offs, r.to(out2_ptr.dtype.element_ty), mask=mask)


def add__Tensor(self, other, *, alpha=1):
    y = other.expand_as(self).contiguous()
    assert self.is_contiguous()
    other_out = torch.empty_like(self)
    n = self.numel()
    if n:
        _add_kernel[(triton.cdiv(n, 1024),)](self, y, self, other_out, n, float(alpha), BLOCK=1024)
    return other_out
