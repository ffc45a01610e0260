# kgb-honest: task=aten/_softmax
"""Style: split-row softmax with workspaces (as FlagGems' wide-row softmax and split-K attention combine):
kernel 1 computes per-(row, split) max and rescaled sums into fp32 workspaces made with
torch.empty(...).fill_(-inf) and x.new_zeros(...); kernel 2 folds the splits and writes the normalised row.
Multiple kernels per call, 2-D grid."""
import torch
import triton
import triton.language as tl


@triton.jit
def _partial_stats(x_ptr, m_ptr, s_ptr, cols, per_split, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    sp = tl.program_id(1)
    lo = sp * per_split
    hi = tl.minimum(lo + per_split, cols)
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for c0 in range(lo, hi, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * cols + offs, mask=offs < hi, other=float("-inf")).to(tl.float32)
        nm = tl.maximum(m, x)
        s = s * tl.where(nm == float("-inf"), 0.0, tl.exp(m - nm)) + tl.where(x == float("-inf"), 0.0, tl.exp(x - nm))
        m = nm
    gm = tl.max(m, axis=0)
    gs = tl.sum(s * tl.where(m == float("-inf"), 0.0, tl.exp(m - gm)), axis=0)
    tl.store(m_ptr + row * SPLITS + sp, gm)
    tl.store(s_ptr + row * SPLITS + sp, gs)


@triton.jit
def _normalize(x_ptr, o_ptr, m_ptr, s_ptr, cols, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    idx = tl.arange(0, SPLITS)
    ms = tl.load(m_ptr + row * SPLITS + idx)
    ss = tl.load(s_ptr + row * SPLITS + idx)
    gm = tl.max(ms, axis=0)
    total = tl.sum(ss * tl.where(ms == float("-inf"), 0.0, tl.exp(ms - gm)), axis=0)
    for c0 in range(tl.program_id(1) * BLOCK, cols, tl.num_programs(1) * BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=float("-inf")).to(tl.float32)
        tl.store(o_ptr + row * cols + offs, (tl.exp(x - gm) / total).to(o_ptr.dtype.element_ty), mask=offs < cols)


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    if rows:
        SPLITS, BLOCK = 4, 64
        per_split = triton.cdiv(cols, SPLITS)
        m_ws = torch.empty((rows, SPLITS), dtype=torch.float32, device=self.device).fill_(float("-inf"))
        s_ws = x.new_zeros((rows, SPLITS), dtype=torch.float32)
        _partial_stats[(rows, SPLITS)](x, m_ws, s_ws, cols, per_split, SPLITS=SPLITS, BLOCK=BLOCK)
        _normalize[(rows, 2)](x, out, m_ws, s_ws, cols, SPLITS=SPLITS, BLOCK=BLOCK)
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
