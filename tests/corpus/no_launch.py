# kgb-corpus: task=aten/add.Tensor expect=no_triton_launch
# Only allocation and a copy: no Triton kernel at all.
import torch


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty(torch.broadcast_shapes(self.shape, other.shape), dtype=self.dtype, device=self.device)
    out.copy_(self.expand_as(out))
    return out
