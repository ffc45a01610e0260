# kgb-corpus: task=aten/add.Tensor expect=host_compute static=forbidden_api
# A Python loop over .tolist() values kept in a dict (the static host-loop rule follows names bound to
# .tolist(), not a subscript of a container). .tolist() and torch.tensor(list) dispatch no compute; the
# answer list becomes an output-sized tensor through aten::lift_fresh. A Triton copy makes a launch.
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
    box = {"x": x.reshape(-1).tolist(), "y": y.reshape(-1).tolist()}
    vals = []
    for i in range(len(box["x"])):
        vals.append(box["x"][i] + alpha * box["y"][i])
    dtype = torch.result_type(self, other)
    res = torch.tensor(vals, dtype=dtype)
    out = torch.empty(x.shape, dtype=dtype, device=self.device)
    if out.numel():
        _copy[(triton.cdiv(out.numel(), 1024),)](res, out, out.numel(), BLOCK=1024)
    return out
