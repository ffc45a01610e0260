# kgb-corpus: task=aten/_softmax expect=compile_error
# kernel_rules._launch_value lets through any object whose class is *named* "TensorDescriptor" (meant for
# triton's), and launches.leaves walks only its __dict__ (empty here). A class of the candidate's own under that
# name is passed as a constexpr: the interpreter hands the kernel the object, and the body calls its method (a
# local: no chain resolved), which does the whole softmax with ndarray operators on the block's `.handle` on the
# host (`math.e ** (h - h.max(...))`, `.sum()`; the `.handle` rule reads kernel bodies only).
# Should be caught: test the class itself (isinstance of triton's TensorDescriptor), not its __name__.
# (Red team 12.) Caught: triton's TensorDescriptor is known by its code, not its name (sandbox/class_code.py).
import math

import torch
import triton
import triton.language as tl


class TensorDescriptor:
    def __init__(self, base):
        self.base = base

    def softmax(self, blk):
        h = blk.handle.data
        e = math.e ** (h - h.max(axis=1, keepdims=True))
        blk.handle.data[...] = e / e.sum(axis=1, keepdims=True)
        return blk


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, rows, cols, OPS: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.arange(0, BR)
    c = tl.arange(0, BC)
    m = (r[:, None] < rows) & (c[None, :] < cols)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=m, other=float("-inf"))
    tl.store(out_ptr + r[:, None] * cols + c[None, :], OPS.softmax(x), mask=m)


def _softmax(self, dim, half_to_float):
    x = self.movedim(dim, -1).contiguous()
    cols = x.shape[-1]
    rows = x.numel() // cols
    out = torch.empty(x.shape, dtype=self.dtype, device=self.device)
    _softmax_kernel[(1,)](x, out, rows, cols, OPS=TensorDescriptor(out), BR=triton.next_power_of_2(rows),
                          BC=triton.next_power_of_2(cols))
    return out.movedim(-1, dim)
