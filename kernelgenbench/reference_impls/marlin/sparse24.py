"""2:4 sparsity for gptq_marlin_24_gemm: compressing kept values and their CUTLASS metadata, and back."""

from __future__ import annotations

import torch

# ---- 2:4 sparsity (CUTLASS metadata) ----


def _meta_offsets(m: int, meta_ncols: int, device=None) -> torch.Tensor:
    """Scatter offsets of the [m, meta_ncols] int16 metadata into CUTLASS's ColumnMajorInterleaved<2> order."""
    rows = torch.arange(m, device=device).view(-1, 1).expand(m, meta_ncols)
    cols = torch.arange(meta_ncols, device=device).view(1, -1).expand(m, meta_ncols)
    rows = (rows // 64 * 64 + (rows % 2) * 2 + (rows % 8) // 4 + ((rows % 32) % 4) // 2 * 32
            + ((rows % 64) // 8) * 4)
    topright = ((rows % 2 == 0) & (cols % 2 == 1)).long()
    bottomleft = ((rows % 2 == 1) & (cols % 2 == 0)).long()
    rows = rows + topright - bottomleft
    cols = cols - topright + bottomleft
    return ((cols // 2) * m * 2 + rows * 2 + cols % 2).reshape(-1)


def compress_24(codes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[N, K] int values with <= 2 non-zeros per 4 along K -> (kept [N, K/2], reordered int16 meta [N, K/16])."""
    m, k = codes.shape
    quads = codes.reshape(m, k // 4, 4)
    nz = quads != 0
    m0, m1, m2, m3 = nz.unbind(-1)
    # The CUTLASS encoding of the two kept indices (see sparse_semi_structured_from_dense_cutlass).
    e0, e1, e2 = m0 & m1, ~m0 & m1, ~m0 & ~m1
    idx0 = e1.long() | (e2.long() << 1)
    idx1 = (e0 | e2 | m3).long() | ((e1 | ~m1).long() << 1)
    kept = torch.stack([quads.gather(-1, idx0.unsqueeze(-1)), quads.gather(-1, idx1.unsqueeze(-1))], -1)
    kept = kept.reshape(m, k // 2)
    nib = (idx0 | (idx1 << 2)).reshape(m, k // 16, 4)
    meta = nib[..., 0] | (nib[..., 1] << 4) | (nib[..., 2] << 8) | (nib[..., 3] << 12)
    meta = torch.where(meta >= 2**15, meta - 2**16, meta).to(torch.int16)
    out = torch.empty(m * (k // 16), dtype=torch.int16, device=codes.device)
    out[_meta_offsets(m, k // 16, codes.device)] = meta.reshape(-1)
    return kept, out.view(m, k // 16)


def decompress_24(kept: torch.Tensor, meta_reordered: torch.Tensor) -> torch.Tensor:
    """Inverse of compress_24: dense [N, K] with zeros where values were dropped."""
    m, khalf = kept.shape
    ncols = meta_reordered.shape[1]
    meta = meta_reordered.reshape(-1)[_meta_offsets(m, ncols, kept.device)].to(torch.int64) & 0xFFFF
    meta = meta.view(m, ncols)
    idx = ((meta.unsqueeze(-1) >> (torch.arange(8, device=kept.device) * 2)) & 3).reshape(m, -1)  # [m, K/2]
    base = (torch.arange(khalf, device=kept.device) // 2) * 4
    dense = torch.zeros(m, khalf * 2, dtype=kept.dtype, device=kept.device)
    dense.scatter_(1, base.view(1, -1) + idx, kept)
    return dense


def mask_24(w: torch.Tensor) -> torch.Tensor:
    """Keep the 2 largest |w| of every 4 consecutive K in each column of w [K, N] (mask_creator)."""
    k, n = w.shape
    g = w.t().abs().reshape(-1, 4)
    drop = torch.argsort(g, dim=1, stable=True)[:, :2]
    keep = torch.ones_like(g).scatter_(1, drop, 0.0)
    return keep.reshape(n, k).t().bool()
