# kgb-corpus: task=aten/add.Tensor expect=compile_error
# Not Python.
def add_Tensor(self, other, *, alpha=1)
    return self
