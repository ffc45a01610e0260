# kgb-corpus: task=aten/add.Tensor expect=crashed
# Leaves the process without a word.
import os


def add_Tensor(self, other, *, alpha=1):
    os._exit(0)
