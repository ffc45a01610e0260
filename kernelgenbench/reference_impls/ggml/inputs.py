"""Input generators of vLLM's GGUF ops: weights quantized from random dense ones, activations, MoE routing."""

from __future__ import annotations

import math

import torch

from kernelgenbench.reference_impls.ggml.layout import ggml_type_id
from kernelgenbench.reference_impls.ggml.quantize import quantize_weight
from kernelgenbench.reference_impls.ggml.references import ggml_moe_get_block_size
from kernelgenbench.reference_impls.vllm_moe import moe_align_block_size

# ---- input generators ----

_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


def _dense(rows: int, cols: int, gen: torch.Generator) -> torch.Tensor:
    # 1/sqrt(cols) keeps products O(1) for every K.
    return torch.randn(rows, cols, generator=gen) / math.sqrt(cols)


def _x(n: int, k: int, dtype: str, gen: torch.Generator) -> torch.Tensor:
    return torch.randn(n, k, generator=gen).to(_DTYPES[dtype])


def make_ggml_dequantize_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for ggml_dequantize: a GGUF weight [m, n] quantized from a dense one."""
    gen = torch.Generator().manual_seed(seed)
    qtype = ggml_type_id(params["quant_type"])
    n = int(params.get("n", params.get("hidden_size", 256)))
    m = int(params.get("m", 256))
    w, _ = quantize_weight(_dense(m, n, gen), qtype)
    return {"W": w.to(device), "type": qtype, "m": m, "n": n, "dtype": _DTYPES[params.get("dtype", "float16")]}


def make_ggml_mul_mat_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for ggml_mul_mat_a8 / ggml_mul_mat_vec_a8: GGUF weight [row, K] and X [num_tokens, K]."""
    gen = torch.Generator().manual_seed(seed)
    qtype = ggml_type_id(params["quant_type"])
    k = int(params.get("hidden_size", 256))
    row = int(params.get("row", 256))
    n = int(params.get("num_tokens", 1))
    w, _ = quantize_weight(_dense(row, k, gen), qtype)
    return {"W": w.to(device), "X": _x(n, k, params.get("dtype", "bfloat16"), gen).to(device), "type": qtype, "row": row}


def _aligned(topk_ids: torch.Tensor, block_size: int, num_experts: int):
    """vllm_moe.moe_align_block_size's outputs at the sizes vLLM's wrapper allocates them (numel + E * (block_size
    - 1) sorted ids, one expert id per block of those): (sorted ids, expert ids, num_tokens_post_padded)."""
    cap = topk_ids.numel() + num_experts * (block_size - 1)
    sorted_ids = torch.empty(cap, dtype=torch.int32)
    expert_ids = torch.empty(math.ceil(cap / block_size), dtype=torch.int32)
    post = torch.empty(1, dtype=torch.int32)
    moe_align_block_size(topk_ids, num_experts, block_size, sorted_ids, expert_ids, post, None)
    return sorted_ids, expert_ids, post


def _moe_problem(params: dict, gen: torch.Generator):
    qtype = ggml_type_id(params["quant_type"])
    tokens = int(params.get("num_tokens", 7))
    k = int(params.get("hidden_size", 512))
    row = int(params.get("row", 256))
    e = int(params.get("num_experts", 8))
    top_k = int(params.get("top_k", 2))
    ws = [quantize_weight(_dense(row, k, gen), qtype)[0] for _ in range(e)]
    x = _x(tokens, k, params.get("dtype", "bfloat16"), gen)
    topk_ids = torch.stack([torch.randperm(e, generator=gen)[:top_k] for _ in range(tokens)]).to(torch.int32)
    return qtype, tokens, row, top_k, e, torch.stack(ws), x, topk_ids


def make_ggml_moe_a8_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for ggml_moe_a8: expert GGUF weights [E, row, bytes], X, and moe_align_block_size outputs."""
    gen = torch.Generator().manual_seed(seed)
    qtype, tokens, row, top_k, e, w, x, topk_ids = _moe_problem(params, gen)
    sorted_ids, expert_ids, post = _aligned(topk_ids, ggml_moe_get_block_size(qtype), e)
    return {
        "X": x.to(device), "W": w.to(device), "sorted_token_ids": sorted_ids.to(device),
        "expert_ids": expert_ids.to(device), "num_tokens_post_padded": post.to(device),
        "type": qtype, "row": row, "top_k": top_k, "tokens": tokens,
    }


def make_ggml_moe_a8_vec_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for ggml_moe_a8_vec: expert GGUF weights [E, row, bytes], X and topk_ids."""
    gen = torch.Generator().manual_seed(seed)
    qtype, tokens, row, top_k, e, w, x, topk_ids = _moe_problem(params, gen)
    return {"X": x.to(device), "W": w.to(device), "topk_ids": topk_ids.to(device), "top_k": top_k,
            "type": qtype, "row": row, "tokens": tokens}
