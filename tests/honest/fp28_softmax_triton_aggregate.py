# kgb-honest: task=aten/_softmax
"""aten::_softmax with a @triton.aggregate record (Triton's public aggregate decorator, as the Gluon/attention
tutorials group kernel state): a `_Row` aggregate (base pointer, length) is built in the kernel and handed to
@triton.jit helpers that load and store a row through it. One program per row, online max/sum."""
import torch
import triton
import triton.language as tl


@(getattr(triton, "aggregate", None) or tl.core._aggregate)
class _Row:
    base: tl.tensor
    n: tl.tensor

    def __init__(self, base, n):
        self.base = base
        self.n = n


@triton.jit
def _load_row(row: _Row, offs):
    return tl.load(row.base + offs, mask=offs < row.n, other=float("-inf")).to(tl.float32)


@triton.jit
def _store_row(row: _Row, offs, val):
    tl.store(row.base + offs, val.to(row.base.dtype.element_ty), mask=offs < row.n)


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    src = _Row(x_ptr + r * n_cols, n_cols)
    dst = _Row(y_ptr + r * n_cols, n_cols)
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for c in range(0, n_cols, BLOCK):
        x = _load_row(src, c + tl.arange(0, BLOCK))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(tl.where(m_new == float("-inf"), 0.0, m - m_new)) + tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(tl.where(m == float("-inf"), float("-inf"), m - row_max)), axis=0)
    for c in range(0, n_cols, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        x = _load_row(src, offs)
        _store_row(dst, offs, tl.exp(x - row_max) / total)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    if self.dim() == 0:
        x = self.reshape(1)
    else:
        x = self.movedim(dim, -1).contiguous()
    n_cols = x.shape[-1]
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    rows = x.numel() // n_cols if n_cols else 0
    if rows:
        _softmax_kernel[(rows,)](x, out, n_cols, BLOCK=min(1024, triton.next_power_of_2(n_cols)))
    return out.reshape(()) if self.dim() == 0 else out.movedim(-1, dim)
