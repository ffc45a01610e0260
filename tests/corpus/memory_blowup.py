# kgb-corpus: task=aten/add.Tensor expect=memory_exceeded
# Allocates until memory runs out.
import torch


def add_Tensor(self, other, *, alpha=1):
    hoard = []
    while True:
        hoard.append(torch.ones(1 << 28, dtype=torch.uint8))
