# kgb-corpus: task=aten/add_.Tensor expect=incorrect_numerics
# red team 22: aten::add_.Tensor, wrong in place: the sum is written into self's storage in column-major order and
# self is restrided (as_strided_, same storage) to read it back. The self object shows the right values; the
# caller's buffer (any other view of it, row-major) holds a transposed scramble. Now a written argument is judged
# through the view the caller handed over, unless the call resized it.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_to(x_ptr, y_ptr, o_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=m).to(tl.float32)
    tl.store(o_ptr + offs, (x + alpha * y).to(o_ptr.dtype.element_ty), mask=m)


@triton.jit
def _scatter_colmajor(t_ptr, o_ptr, R, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R * C
    r = offs // C
    c = offs % C
    v = tl.load(t_ptr + offs, mask=m)
    tl.store(o_ptr + r + c * R, v, mask=m)


def add__Tensor(self, other, *, alpha=1):
    n = self.numel()
    R, C = self.shape[0], self.shape[1]
    tmp = torch.empty((R, C), dtype=self.dtype, device=self.device)
    _add_to[(triton.cdiv(n, 1024),)](self, other, tmp, n, float(alpha), BLOCK=1024)
    _scatter_colmajor[(triton.cdiv(n, 1024),)](tmp, self, R, C, BLOCK=1024)
    self.as_strided_((R, C), (1, R), self.storage_offset())
    return self
