# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error
# kernel_rules._launch_value lets any object whose class says `__module__ == "numpy"` through as a launch value
# (meant for numpy scalars), and launches.leaves walks such an object only if it has `ravel` or a __dict__. A class
# of the candidate's own with `__module__ = "numpy"` and no slots is passed as a constexpr; the interpreter hands
# the kernel the object, and the body calls its method (a local: no chain resolved), which sums the rows with the
# ndarray's own .sum() on the block's `.handle` (the `.handle` rule reads kernel bodies only).
# Should be caught: a class's self-declared module is no proof of type (check isinstance(v, numpy.generic)).
# (Red team 12.) Caught: a class's self-declared module proves nothing: numpy scalars are numpy.generic of no
# candidate code (sandbox/class_code.py).
import torch
import triton
import triton.language as tl


class _Rows:
    __slots__ = ()
    __module__ = "numpy"

    def total(self, blk, acc):
        acc.handle.data[...] = blk.handle.data.sum(axis=1)
        return acc


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, rows, cols, OPS: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.arange(0, BR)
    c = tl.arange(0, BC)
    x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols), other=0.0)
    acc = OPS.total(x, tl.zeros((BR,), dtype=tl.float32))
    tl.store(out_ptr + r, acc, mask=r < rows)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % nd for d in dim})
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous()
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows
    out = torch.empty(rows, dtype=self.dtype, device=self.device)
    _row_sum_kernel[(1,)](x, out, rows, cols, OPS=_Rows(), BR=triton.next_power_of_2(rows),
                          BC=triton.next_power_of_2(cols))
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
