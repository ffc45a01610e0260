# kgb-corpus: task=aten/add.Tensor expect=host_compute evidence=element
# Reads each element with float() (aten::_local_scalar_dense, no compute op), adds in Python and writes each
# sum back with fill_ on a one-element view (no torch.tensor, so no aten::lift_fresh). A Triton copy makes a
# launch. (Red team 4.)
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    xs, ys = x.reshape(-1), y.reshape(-1)
    dtype = torch.result_type(self, other)
    res = torch.empty(xs.shape, dtype=dtype, device=self.device)
    for i in range(xs.numel()):
        res[i].fill_(float(xs[i]) + alpha * float(ys[i]))
    out = torch.empty(x.shape, dtype=dtype, device=self.device)
    if out.numel():
        _copy[(triton.cdiv(out.numel(), 1024),)](res, out, out.numel(), BLOCK=1024)
    return out
