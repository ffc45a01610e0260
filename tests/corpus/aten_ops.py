# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Calls the ATen op itself.
import torch


def add_Tensor(self, other, *, alpha=1):
    return torch.ops.aten.add.Tensor(self, other, alpha=alpha)
