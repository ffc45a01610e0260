# kgb-corpus: task=aten/add.Tensor expect=crashed
# Dereferences a null pointer: the worker dies with SIGSEGV.
import ctypes


def add_Tensor(self, other, *, alpha=1):
    return ctypes.string_at(0)
