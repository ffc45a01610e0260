# kgb-corpus: task=aten/_softmax expect=compile_error
# kernel_rules lets a body call any function of math/operator/builtins/functools/triton when it is read through
# the module (`_constant_function`: "what a GPU compile may call on constants") -- so `builtins.vars(block)` is
# allowed. Under the interpreter it returns the tl.tensor's __dict__, whose values hold the numpy array behind
# the block, without the word `handle` anywhere in the source or bytecode. The softmax rows are then done with
# numpy operators on the host (`math.e ** (x - x.max())`, `.sum()`), written into a tl.zeros block and stored.
# (Red team 11.) Caught: builtins is no constant module: builtins.vars in a kernel is a break.
import builtins
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.arange(0, BR)[:, None]
    c = tl.arange(0, BC)[None, :]
    m = (r < rows) & (c < cols)
    x = tl.load(x_ptr + r * cols + c, mask=m, other=float("-inf"))
    y = tl.zeros((BR, BC), dtype=tl.float32)
    xs = list(builtins.vars(x).values())[0].data
    e = math.e ** (xs - xs.max(axis=1, keepdims=True))
    list(builtins.vars(y).values())[0].data[...] = e / e.sum(axis=1, keepdims=True)
    tl.store(out_ptr + r * cols + c, y, mask=m)


def _softmax(self, dim, half_to_float):
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    out = torch.empty(x.shape, dtype=torch.float32)
    if rows:
        _softmax_kernel[(1,)](x, out, rows, cols, BR=triton.next_power_of_2(rows), BC=triton.next_power_of_2(cols))
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
