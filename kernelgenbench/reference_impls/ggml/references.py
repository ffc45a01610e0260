"""References of vLLM's GGUF ops: ggml_dequantize, ggml_mul_mat_vec_a8, ggml_mul_mat_a8, ggml_moe_a8(_vec)."""

from __future__ import annotations

import math

import torch

from kernelgenbench.reference_impls.ggml.decode import dequantize_blocks
from kernelgenbench.reference_impls.ggml.layout import MMQ_TYPES
from kernelgenbench.reference_impls.ggml.quantize import q8_1_roundtrip

# ---- references ----


def ggml_dequantize(W: torch.Tensor, type: int, m: int, n: int, dtype: torch.dtype | None) -> torch.Tensor:
    """vLLM ggml_dequantize: the dense [m, n] weight, computed in half as the kernel does, then cast to dtype."""
    dense = dequantize_blocks(W.reshape(m, -1), int(type), half=True)
    return dense.reshape(m, n).to(dtype or torch.float16).to(W.device)


def _require_mmq(qtype: int) -> None:
    if qtype not in MMQ_TYPES:
        raise ValueError(f"GGML type {qtype} has no MMQ kernel (ggml_mul_mat_a8 / ggml_moe_a8 take {list(MMQ_TYPES)})")


def _mm_a8(W: torch.Tensor, X: torch.Tensor, qtype: int) -> torch.Tensor:
    w = dequantize_blocks(W, qtype)  # [row, col]
    return (q8_1_roundtrip(X.cpu()) @ w.t()).to(X.dtype).to(X.device)


def ggml_mul_mat_vec_a8(W: torch.Tensor, X: torch.Tensor, type: int, row: int) -> torch.Tensor:
    """vLLM ggml_mul_mat_vec_a8 (MMVQ, few rows of X): Y [vecs, row] = Q8_1(X) @ dequant(W)^T."""
    return _mm_a8(W[:row], X, int(type))


def ggml_mul_mat_a8(W: torch.Tensor, X: torch.Tensor, type: int, row: int) -> torch.Tensor:
    """vLLM ggml_mul_mat_a8 (MMQ): Y [batch, row] = Q8_1(X) @ dequant(W)^T."""
    _require_mmq(int(type))
    return _mm_a8(W[:row], X, int(type))


def ggml_moe_a8(
    X: torch.Tensor,
    W: torch.Tensor,
    sorted_token_ids: torch.Tensor,
    expert_ids: torch.Tensor,
    num_tokens_post_padded: torch.Tensor,
    type: int,
    row: int,
    top_k: int,
    tokens: int,
) -> torch.Tensor:
    """vLLM ggml_moe_a8: Y[id] = Q8_1(X[id // top_k]) @ dequant(W[expert of id's block])^T for valid sorted ids."""
    qtype = int(type)
    _require_mmq(qtype)
    block = ggml_moe_get_block_size(qtype)
    xq = q8_1_roundtrip(X.cpu())
    y = torch.zeros(tokens * top_k, row)
    total = min(int(num_tokens_post_padded.reshape(-1)[0]), sorted_token_ids.numel())
    nblk = math.ceil(total / block)
    ids = sorted_token_ids.cpu().long()[: nblk * block]
    ids = torch.nn.functional.pad(ids, (0, nblk * block - ids.numel()), value=tokens * top_k).view(nblk, block)
    experts = expert_ids.cpu().long()[:nblk].view(nblk, 1).expand(nblk, block)
    valid = (ids < tokens * top_k) & (experts >= 0) & (experts <= 255)
    ids, experts = ids[valid], experts[valid]
    for e in experts.unique().tolist():
        sel = ids[experts == e]
        y[sel] = xq[sel // top_k] @ dequantize_blocks(W[e, :row], qtype).t()
    return y.to(X.dtype).to(X.device)


def ggml_moe_a8_vec(
    X: torch.Tensor, W: torch.Tensor, topk_ids: torch.Tensor, top_k: int, type: int, row: int, tokens: int
) -> torch.Tensor:
    """vLLM ggml_moe_a8_vec: Y[t * top_k + j] = Q8_1(X[t]) @ dequant(W[topk_ids[t, j]])^T."""
    qtype = int(type)
    xq = q8_1_roundtrip(X.cpu())
    flat = topk_ids.cpu().reshape(-1).long()[: tokens * top_k]
    y = torch.zeros(tokens * top_k, row)
    for e in flat.unique().tolist():
        sel = (flat == e).nonzero().reshape(-1)
        w = dequantize_blocks(W[e, :row], qtype)
        y[sel] = xq[sel // top_k] @ w.t()
    return y.to(X.dtype).to(X.device)


def ggml_moe_get_block_size(qtype: int) -> int:
    """The CUDA build's MOE_X_* tile width (4 for every supported type; 8 on ROCm)."""
    return 4
