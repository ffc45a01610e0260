# kgb-corpus: task=aten/add.Tensor expect=crashed
# Raises SIGSEGV in the worker (the interpreter's own fault trigger: raw ctypes reads are caught statically).
import faulthandler


def add_Tensor(self, other, *, alpha=1):
    faulthandler._sigsegv()
