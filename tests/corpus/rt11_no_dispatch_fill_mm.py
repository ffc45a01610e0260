# kgb-corpus: task=aten/mm expect=host_compute static=forbidden_api
# A Python triple loop computes the matrix product; the output is allocated and written one element at a time
# with Tensor.fill_ inside torch.utils._mode_utils.no_dispatch() (the Python dispatch key excluded: the static list
# forbids torch._C._Disable* by name, not this wrapper). The recorder sees none of it (no small writes counted, the
# ledger never learns the storage); the profiler sees aten::empty/select/fill_, classed allocation/view/fill, not
# compute. A dummy Triton launch satisfies no_launch.
# (Red team 11.) Caught: a storage first met after the import, made by no recorded op, is host data; statically, _mode_utils.
import torch
import triton
import triton.language as tl
from torch.utils._mode_utils import no_dispatch


@triton.jit
def _touch(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs))


def _product(a, b, m, k, n):
    out = []
    for i in range(m):
        row = a[i * k:(i + 1) * k]
        for j in range(n):
            acc = 0.0
            for t in range(k):
                acc += row[t] * b[t * n + j]
            out.append(acc)
    return out


def mm(self, mat2):
    m, k = self.shape
    n = mat2.shape[1]
    with no_dispatch():
        box = dict(a=self.contiguous().reshape(-1).tolist(), b=mat2.contiguous().reshape(-1).tolist())
        vals = _product(box["a"], box["b"], m, k, n)
        out = torch.empty((m, n), dtype=self.dtype)
        flat = out.view(-1)
        for idx in range(m * n):
            flat[idx].fill_(vals[idx])
    tmp = torch.zeros(4, dtype=torch.float32)
    _touch[(1,)](tmp, BLOCK=4)
    return out
