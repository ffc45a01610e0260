# kgb-corpus: task=aten/add.Tensor expect=missing_entry_point
# Defines the wrong function name.
def add(self, other, *, alpha=1):
    return self
