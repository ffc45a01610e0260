# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Compiles an inline C++ extension.
from torch.utils.cpp_extension import load_inline

_mod = load_inline(name="add_ext", cpp_sources="at::Tensor add(at::Tensor a, at::Tensor b) { return a + b; }",
                   functions=["add"])


def add_Tensor(self, other, *, alpha=1):
    return _mod.add(self, other * alpha)
