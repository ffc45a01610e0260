# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Adds element by element in a Python loop over .tolist(), then copies the list in with a Triton kernel.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _triton_copy(src, dst):
    n = dst.numel()
    _copy_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    return dst


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    xs = x.reshape(-1).tolist()
    ys = y.reshape(-1).tolist()
    vals = [a + alpha * b for a, b in zip(xs, ys, strict=True)]
    out = torch.empty(x.shape, dtype=torch.result_type(self, other), device=self.device)
    return _triton_copy(torch.tensor(vals, dtype=out.dtype, device=out.device), out)
