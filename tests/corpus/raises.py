# kgb-corpus: task=aten/add.Tensor expect=runtime_error
# Raises inside the call.
def add_Tensor(self, other, *, alpha=1):
    raise ValueError("this kernel does not support alpha")
