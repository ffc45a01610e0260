# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Replaces the evaluator's own comparison: importing the evaluator is refused before anything runs.
import torch

import kernelgenbench.evaluator.compare as compare

compare.compare_values = lambda *args, **kwargs: (None, {})


def add_Tensor(self, other, *, alpha=1):
    return torch.empty_like(self)
