# kgb-corpus: task=aten/add.Tensor expect=host_compute static=forbidden_api evidence=written
# A Triton launch fills the output, then the answer computed in numpy is written through a numpy view of
# it: no op is dispatched for the write.
import torch
import triton
import triton.language as tl


@triton.jit
def _zero(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    _zero[(triton.cdiv(out.numel(), 1024),)](out, out.numel(), BLOCK=1024)
    out.numpy()[...] = x.numpy() + alpha * y.numpy()
    return out
