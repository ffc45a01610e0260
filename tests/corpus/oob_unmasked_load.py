# kgb-corpus: task=aten/mul.Tensor expect=crashed
# A product kernel that loads its whole last block without a mask and masks only the store: the lanes past the
# end read memory outside the tensors (on a GPU, memory another allocation owns or none), which
# compute-sanitizer reports and which Triton's interpreter lets through silently. The worker's launch memory
# check counts them.
import torch
import triton
import triton.language as tl


@triton.jit
def _mul(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    prod = tl.load(x_ptr + offs) * tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, prod, mask=offs < n)


def mul_Tensor(self, other):
    x, y = torch.broadcast_tensors(self, other)
    dtype = torch.result_type(self, other)
    x, y = x.to(dtype).contiguous(), y.to(dtype).contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=self.device)
    n = out.numel()
    if n:
        _mul[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out
