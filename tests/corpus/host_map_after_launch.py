# kgb-corpus: task=aten/add.Tensor expect=host_compute static=forbidden_api evidence=written
# Tensor.map_ calls a Python function per element and writes the result with no op dispatched.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    xs, ys = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=torch.float32)
    _copy[(triton.cdiv(out.numel(), 1024),)](xs, out, out.numel(), BLOCK=1024)
    out.map_(ys, lambda a, b: a + alpha * b)
    return out
