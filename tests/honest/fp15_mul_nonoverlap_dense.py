# kgb-honest: task=aten/mul.Tensor
"""Style: FlagGems `pointwise_dynamic` fast path: when the inputs already share one non-overlapping-and-dense
layout (`torch.ops.aten.is_non_overlapping_and_dense`, a metadata query), the output is allocated with
`torch.empty_like` (same strides) and the kernel runs over the raw linear storage index; otherwise inputs are
broadcast and made contiguous."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mul_flat(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    if x.dtype.is_floating():
        r = x.to(tl.float32) * y.to(tl.float32)
    else:
        r = x * y
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def _same_dense_layout(a, b):
    return (a.shape == b.shape and a.stride() == b.stride() and a.dtype == b.dtype
            and torch.ops.aten.is_non_overlapping_and_dense(a))


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    if _same_dense_layout(self, other) and self.dtype == dtype and self.storage_offset() == 0 \
            and other.storage_offset() == 0:
        x, y = self, other
        out = torch.empty_like(x)
    else:
        x, y = torch.broadcast_tensors(self, other)
        x = x.to(dtype).contiguous()
        y = y.to(dtype).contiguous()
        out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        _mul_flat[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
