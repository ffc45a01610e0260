# kgb-corpus: task=aten/add.Tensor expect=timeout
# Never returns.
def add_Tensor(self, other, *, alpha=1):
    while True:
        pass
