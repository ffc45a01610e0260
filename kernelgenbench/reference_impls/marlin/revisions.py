"""The Marlin ops at later vLLM schemas (0.33.0, 0.34.0): adapters over the 0.13.0 references and generators."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.marlin.gemm import gptq_marlin_gemm
from kernelgenbench.reference_impls.marlin.inputs import (
    make_awq_marlin_moe_repack_inputs,
    make_gptq_marlin_gemm_inputs,
    make_gptq_marlin_moe_repack_inputs,
)
from kernelgenbench.reference_impls.marlin.repack import awq_marlin_moe_repack, gptq_marlin_moe_repack

# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)
# The vllm/_custom_ops.py wrappers lost `perm` in 0.33.0 (act-order is gone from the Marlin repack) and
# `is_a_8bit` in 0.34.0 (no 8-bit-activation layout): the same repack with no row permutation.


def gptq_marlin_moe_repack_v033(b_q_weight: torch.Tensor, size_k: int, size_n: int, num_bits: int,
                                is_a_8bit: bool = False) -> torch.Tensor:
    """vLLM gptq_marlin_moe_repack from 0.33.0: per expert, GPTQ int32 [K/pf, N] -> Marlin (no perm)."""
    perm = torch.empty(b_q_weight.shape[0], 0, dtype=torch.int32, device=b_q_weight.device)
    return gptq_marlin_moe_repack(b_q_weight, perm, size_k, size_n, num_bits, is_a_8bit)


def awq_marlin_moe_repack_v033(b_q_weight: torch.Tensor, size_k: int, size_n: int, num_bits: int,
                               is_a_8bit: bool = False) -> torch.Tensor:
    """vLLM awq_marlin_moe_repack from 0.33.0: per expert, AWQ int32 [K, N/pf] -> Marlin (no perm)."""
    perm = torch.empty(b_q_weight.shape[0], 0, dtype=torch.int32, device=b_q_weight.device)
    return awq_marlin_moe_repack(b_q_weight, perm, size_k, size_n, num_bits, is_a_8bit)


def _without(x: dict, *keys: str) -> dict:
    return {k: v for k, v in x.items() if k not in keys}


def make_gptq_marlin_moe_repack_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_gptq_marlin_moe_repack_inputs without act-order and without perm."""
    return _without(make_gptq_marlin_moe_repack_inputs({**params, "act_order": False}, seed=seed, device=device),
                    "perm")


def make_gptq_marlin_moe_repack_inputs_v034(params: dict, *, seed: int, device: str) -> dict:
    """make_gptq_marlin_moe_repack_inputs_v033 for 16-bit activations only (no is_a_8bit)."""
    return _without(make_gptq_marlin_moe_repack_inputs_v033({**params, "is_a_8bit": False}, seed=seed,
                                                            device=device), "is_a_8bit")


def make_awq_marlin_moe_repack_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_awq_marlin_moe_repack_inputs without perm."""
    return _without(make_awq_marlin_moe_repack_inputs(params, seed=seed, device=device), "perm")


def make_awq_marlin_moe_repack_inputs_v034(params: dict, *, seed: int, device: str) -> dict:
    """make_awq_marlin_moe_repack_inputs_v033 for 16-bit activations only (no is_a_8bit)."""
    return _without(make_awq_marlin_moe_repack_inputs_v033({**params, "is_a_8bit": False}, seed=seed,
                                                           device=device), "is_a_8bit")


# gptq_marlin_gemm is registered as marlin_gemm from 0.33.0, without act-order (g_idx_or_none, perm_or_none,
# is_k_full) and, from 0.34.0, without 8-bit activations (a_scales).


def marlin_gemm_v033(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, a_scales, global_scale, b_zeros_or_none,
                     workspace, b_type_id, size_m, size_n, size_k, use_atomic_add, use_fp32_reduce, is_zp_float):
    """vLLM marlin_gemm (0.33.0): gptq_marlin_gemm with the groups in order and the whole of K on this rank."""
    return gptq_marlin_gemm(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, a_scales, global_scale,
                            b_zeros_or_none, None, None, workspace, b_type_id, size_m, size_n, size_k, True,
                            use_atomic_add, use_fp32_reduce, is_zp_float)


def marlin_gemm_v034(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, global_scale, b_zeros_or_none,
                     workspace, b_type_id, size_m, size_n, size_k, use_atomic_add, use_fp32_reduce, is_zp_float):
    """vLLM marlin_gemm (0.34.0): marlin_gemm_v033 for 16-bit activations (no a_scales)."""
    return marlin_gemm_v033(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, None, global_scale,
                            b_zeros_or_none, workspace, b_type_id, size_m, size_n, size_k, use_atomic_add,
                            use_fp32_reduce, is_zp_float)


def make_marlin_gemm_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_gptq_marlin_gemm_inputs without act-order (no g_idx_or_none, perm_or_none, is_k_full)."""
    x = make_gptq_marlin_gemm_inputs({**params, "act_order": False, "is_k_full": True}, seed=seed, device=device)
    return _without(x, "g_idx_or_none", "perm_or_none", "is_k_full")


def make_marlin_gemm_inputs_v034(params: dict, *, seed: int, device: str) -> dict:
    """make_marlin_gemm_inputs_v033 with 16-bit activations only (no a_scales)."""
    return _without(make_marlin_gemm_inputs_v033(_without(params, "a_dtype"), seed=seed, device=device), "a_scales")
