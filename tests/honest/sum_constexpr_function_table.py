# kgb-honest: task=aten/sum.dim_IntList
"""Style: a @triton.constexpr_function that reads a module-level lookup table (plain dict) and uses ordinary Python
builtins (sorted, abs): legal, since a constexpr function is host Python run at compile time (like
triton_kernels' dtype-to-format tables); the table is a constant of the module."""
import math

import torch
import triton
import triton.language as tl

_ROWS_FOR_BLOCK = {16: 64, 32: 32, 64: 16, 128: 16, 256: 8, 512: 4}


@triton.constexpr_function
def rows_for(block_c):
    if block_c in _ROWS_FOR_BLOCK:
        return _ROWS_FOR_BLOCK[block_c]
    nearest = sorted(_ROWS_FOR_BLOCK, key=lambda b: abs(b - block_c))[0]
    return _ROWS_FOR_BLOCK[nearest]


@triton.jit
def _rowsum_kernel(x_ptr, out_ptr, rows, cols, stride_r, BC: tl.constexpr):
    BR: tl.constexpr = rows_for(BC)
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    acc = tl.zeros((BR,), dtype=tl.float32)
    for c0 in range(0, cols, BC):
        c = c0 + tl.arange(0, BC)
        x = tl.load(x_ptr + r[:, None] * stride_r + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols),
                    other=0.0).to(tl.float32)
        acc += tl.sum(x, axis=1)
    tl.store(out_ptr + r, acc.to(out_ptr.dtype.element_ty), mask=r < rows)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or (self.dtype if self.dtype.is_floating_point else torch.int64)
    rows = math.prod(self.shape[d] for d in keep)
    cols = math.prod(self.shape[d] for d in dims) if nd else 1
    x = (self.permute(*keep, *dims) if nd else self.reshape(1)).contiguous().view(rows, cols)
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    if rows:
        if cols == 0:
            out.zero_()
        else:
            bc = min(max(triton.next_power_of_2(cols), 16), 512)
            br = rows_for(bc)
            _rowsum_kernel[(triton.cdiv(rows, br),)](x, out, rows, cols, x.stride(0), BC=bc)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
