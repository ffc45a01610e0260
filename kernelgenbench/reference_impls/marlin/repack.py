"""References of vLLM's Marlin repacks: gptq/awq_marlin_moe_repack and marlin_int4_fp8_preprocess."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.marlin.layout import (
    awq_unpack,
    marlin_pack,
    pack_along,
    pack_free_rows,
    unpack_along,
)


def gptq_marlin_moe_repack(
    b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int, num_bits: int, is_a_8bit: bool = False
) -> torch.Tensor:
    """vLLM gptq_marlin_moe_repack: per expert, GPTQ int32 [K/pf, N] (rows gathered by perm) -> Marlin."""
    outs = []
    for e in range(b_q_weight.shape[0]):
        q = pack_free_rows(b_q_weight[e], num_bits)
        if perm.numel() > 0 and perm[e].numel() > 0:
            q = q[perm[e].long()]
        outs.append(marlin_pack(q, num_bits, is_a_8bit))
    return torch.stack(outs).to(b_q_weight.device)


def awq_marlin_moe_repack(
    b_q_weight: torch.Tensor, perm: torch.Tensor, size_k: int, size_n: int, num_bits: int, is_a_8bit: bool = False
) -> torch.Tensor:
    """vLLM awq_marlin_moe_repack: per expert, AWQ int32 [K, N/pf] -> Marlin (perm is ignored, as upstream)."""
    outs = [marlin_pack(awq_unpack(b_q_weight[e], num_bits), num_bits, is_a_8bit) for e in range(b_q_weight.shape[0])]
    return torch.stack(outs).to(b_q_weight.device)


def marlin_int4_fp8_preprocess(qweight: torch.Tensor, qzeros_or_none: torch.Tensor | None, inplace: bool) -> torch.Tensor:
    """vLLM marlin_int4_fp8_preprocess: every 4-bit code v -> v - z if v >= z else 15 - v (z = 8 without qzeros)."""
    v = unpack_along(qweight.reshape(qweight.shape[0], -1), 4, 1)
    if qzeros_or_none is None:
        z = torch.full_like(v, 8)
    else:
        zw = unpack_along(qzeros_or_none, 4, 1)
        z = zw.repeat_interleave(qweight.shape[0] // qzeros_or_none.shape[0], dim=0)
    r = torch.where(v >= z, v - z, 15 - v)
    out = pack_along(r, 4, 1).view(qweight.shape)
    if inplace:
        qweight.copy_(out)
        return qweight
    return out
