# kgb-corpus: task=aten/add.Tensor expect=torch_fallback gpu=host_compute
# Copies the inputs to the host, computes there with torch and copies the answer back; a Triton kernel
# launches for show. On an accelerator the copies, as large as the data, make it `host_compute` (judged
# before the torch ops); on CPU there is no copy to see and the add it dispatches is `torch_fallback`.
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
    x, y = torch.broadcast_tensors(self, other)
    scratch = torch.empty_like(x.contiguous())
    _launch(x.contiguous(), y.contiguous(), scratch, alpha)
    return (self.cpu() + alpha * other.cpu()).to(self.device)
