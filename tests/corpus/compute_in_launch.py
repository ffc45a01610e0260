# kgb-corpus: task=aten/add.Tensor expect=torch_fallback evidence=inside
# Under the interpreter a kernel body is Python: it calls a plain function that adds in torch.
import torch
import triton
import triton.language as tl

_BOX = {}


def _torch_add(n):
    _BOX["out"].copy_(torch.add(_BOX["x"], _BOX["y"], alpha=_BOX["alpha"]))
    return n


@triton.jit
def _kernel(out_ptr, n, BLOCK: tl.constexpr):
    _torch_add(n)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty_like(x.contiguous())
    _BOX.update(x=x, y=y, out=out, alpha=alpha)
    _kernel[(1,)](out, out.numel(), BLOCK=16)
    return out
