"""aten::add_.Tensor: self += alpha * other in place (other broadcast to self's shape)."""
import triton
import triton.language as tl


@triton.jit
def _add_inplace_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(x_ptr + offs, (x + alpha * y).to(x_ptr.dtype.element_ty), mask=mask)


def add__Tensor(self, other, *, alpha=1):
    y = other.expand_as(self).contiguous()
    target = self if self.is_contiguous() else self.contiguous()
    n = target.numel()
    if n:
        _add_inplace_kernel[(triton.cdiv(n, 1024),)](target, y, n, float(alpha), BLOCK=1024)
    if target is not self:
        self.copy_(target)
    return self
