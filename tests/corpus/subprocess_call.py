# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Runs another program.
import subprocess

import torch


def add_Tensor(self, other, *, alpha=1):
    subprocess.run(["true"], check=True)
    return torch.empty_like(self)
