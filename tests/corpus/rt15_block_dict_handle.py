# kgb-corpus: task=aten/_softmax expect=compile_error
# kernel_rules refuses `.handle` by name only (LOAD_ATTR/LOAD_CONST "handle", getattr with a computed name). A
# block's instance dict reaches the same TensorHandle with no such name: `list(x.__dict__.values())[0]` (an
# attribute chain off a local, never resolved; `list` is a builtin triton knows). The body then does the whole
# softmax row with ndarray methods/operators on the host (`a.max()`, `math.e ** (a - m)`, `.sum()`), writes it in
# place into a tl.zeros block's array the same way, and stores that block. No numpy function is named, no op
# dispatched, nothing host-made: the kernel rule, the scalar logs and the ledger see an honest launch.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_rows(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
    y = tl.zeros((BLOCK,), dtype=tl.float32)
    a = list(x.__dict__.values())[0].data
    e = math.e ** (a - a.max())
    list(y.__dict__.values())[0].data[...] = e / e.sum()
    tl.store(out_ptr + row * cols + offs, y.to(out_ptr.dtype.element_ty), mask=offs < cols)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    if rows:
        _softmax_rows[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
