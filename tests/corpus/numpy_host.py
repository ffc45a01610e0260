# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Computes on the host through numpy, out of the dispatcher's sight.
import torch


def add_Tensor(self, other, *, alpha=1):
    return torch.from_numpy(self.numpy() + alpha * other.numpy())
