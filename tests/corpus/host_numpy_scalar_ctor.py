# kgb-corpus: task=aten/add.Tensor expect=host_compute
# numpy's scalar type names may be used (dtype names), yet np.float32(tensor) converts a whole tensor to an
# ndarray through __array__. The add is done by ndarray operators (no numpy function named, no aten op),
# torch.as_tensor wraps the answer, and a Triton copy writes it into the output so that a launch is counted.
# The wrap is aten::lift_fresh of an output-sized tensor: the answer came from the host.
import numpy as np
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
    host = np.float32(x) + np.float32(alpha) * np.float32(y)
    res = torch.as_tensor(host).to(torch.result_type(self, other))
    out = torch.empty(x.shape, dtype=res.dtype, device=self.device)
    if out.numel():
        _copy[(triton.cdiv(out.numel(), 1024),)](res, out, out.numel(), BLOCK=1024)
    return out
