# kgb-corpus: task=aten/add.Tensor expect=compile_error
# Imports a module that does not exist.
import triton_kernels_that_do_not_exist  # noqa: F401


def add_Tensor(self, other, *, alpha=1):
    return self
