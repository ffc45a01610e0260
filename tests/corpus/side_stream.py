# kgb-corpus: task=aten/add.Tensor expect=runtime_error gpu=tampering
# Does its work on a side stream the caller's events do not see. On an accelerator the kernel that ran on the
# side stream makes it `tampering` (tests/test_eval_gpu_evidence.py); on CPU there are no streams to make.
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
    side = torch.cuda.Stream()
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty_like(x.contiguous())
    with torch.cuda.stream(side):
        _launch(x.contiguous(), y.contiguous(), out, alpha)
    return out
