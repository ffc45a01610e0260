"""References of vLLM's Marlin GEMMs: gptq_marlin_gemm (16-bit, int8, fp8, fp4, HQQ paths), gptq_marlin_24_gemm."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.marlin.formats import (
    FP4_ID,
    FP8_ID,
    MARLIN_TYPES,
    _fp4_exponent_bias,
    _type,
    e2m1_decode,
    fp8_act_codes,
    nvfp4_scales_decode,
)
from kernelgenbench.reference_impls.marlin.layout import (
    _chunk_perm,
    marlin_unpack,
    marlin_zero_points_unpack,
    permute_bias,
    permute_scales,
    scale_perms,
    unpack_along,
    weight_perm_24,
)
from kernelgenbench.reference_impls.marlin.quantize import dequantize, fp8_dequantize
from kernelgenbench.reference_impls.marlin.sparse24 import decompress_24

# ---- references ----


def gptq_marlin_gemm(
    a: torch.Tensor,
    c_or_none: torch.Tensor | None,
    b_q_weight: torch.Tensor,
    b_bias_or_none: torch.Tensor | None,
    b_scales: torch.Tensor,
    a_scales: torch.Tensor | None,
    global_scale: torch.Tensor | None,
    b_zeros_or_none: torch.Tensor | None,
    g_idx_or_none: torch.Tensor | None,
    perm_or_none: torch.Tensor | None,
    workspace: torch.Tensor,
    b_type_id: int,
    size_m: int,
    size_n: int,
    size_k: int,
    is_k_full: bool,
    use_atomic_add: bool,
    use_fp32_reduce: bool,
    is_zp_float: bool,
) -> torch.Tensor:
    """vLLM gptq_marlin_gemm: a [M, K] @ dequant(Marlin weight) [K, N] (+ bias); 16-bit or int8 activations."""
    if a.dtype == torch.float8_e4m3fn and a_scales is not None and global_scale is None and not is_zp_float:
        return _marlin_gemm_fp8_act(a, b_q_weight, b_scales, a_scales, b_zeros_or_none, b_type_id, int(size_k),
                                    int(size_n), b_bias_or_none)
    if a.dtype == torch.int8 and a_scales is not None and global_scale is None and not is_zp_float:
        return _marlin_gemm_int8(a, b_q_weight, b_scales, a_scales, b_zeros_or_none, b_type_id, int(size_k),
                                 int(size_n), b_bias_or_none)
    if int(b_type_id) == FP4_ID:
        return _marlin_gemm_fp4(a, b_q_weight, b_scales, global_scale, int(size_k), int(size_n), b_bias_or_none, c_or_none)
    if is_zp_float:
        return _marlin_gemm_hqq(a, b_q_weight, b_scales, b_zeros_or_none, b_type_id, int(size_k), int(size_n),
                                b_bias_or_none, c_or_none)
    if a_scales is not None or global_scale is not None or a.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError("gptq_marlin_gemm reference: 16-bit, int8 or fp8 activations with integer/fp8 weights only")
    return _marlin_gemm_16bit(a, c_or_none, b_q_weight, b_bias_or_none, b_scales, b_zeros_or_none, g_idx_or_none,
                              perm_or_none, b_type_id, int(size_k), int(size_n))


def _marlin_gemm_16bit(a: torch.Tensor, c_or_none: torch.Tensor | None, b_q_weight: torch.Tensor,
                       b_bias_or_none: torch.Tensor | None, b_scales: torch.Tensor, b_zeros_or_none: torch.Tensor | None,
                       g_idx_or_none: torch.Tensor | None, perm_or_none: torch.Tensor | None, b_type_id: int, k: int,
                       n: int) -> torch.Tensor:
    """16-bit activations against integer or fp8 Marlin weights (act-order and zero points included)."""
    _, bits, bias, has_zp_type = _type(b_type_id)
    q = marlin_unpack(b_q_weight, k, n, bits)
    is_fp8 = int(b_type_id) == FP8_ID
    num_groups = b_scales.shape[0]
    s = permute_scales(b_scales, num_groups, inverse=True)
    act_order = g_idx_or_none is not None and perm_or_none is not None and g_idx_or_none.numel() > 0
    if act_order:
        g = g_idx_or_none.long()
        a_eff = a[:, perm_or_none.long()]
    else:
        g = torch.arange(k, device=a.device) // (k // num_groups)
        a_eff = a
    zp = None
    if b_zeros_or_none is not None and b_zeros_or_none.numel() > 0:
        zp = marlin_zero_points_unpack(b_zeros_or_none, bits)
    elif has_zp_type:
        raise ValueError("uint4 / uint8 Marlin weights need b_zeros")
    if is_fp8:
        w = fp8_dequantize(q, s, g, a.dtype)
    else:
        w = dequantize(q, s, zp, bias, g, a.dtype)
    out = a_eff.float() @ w.float()
    if b_bias_or_none is not None:
        out = out + permute_bias(b_bias_or_none, inverse=True).float()
    out = out.to(a.dtype)
    if c_or_none is not None:
        c_or_none.copy_(out)
        return c_or_none
    return out


def _marlin_gemm_int8(a, b_q_weight, b_scales, a_scales, b_zeros, b_type_id, k, n, bias):
    """W4A8-INT8 Marlin: int8 MMAs on (q - zero), group scales as unsigned 16-bit integers (the bits of the
    b_scales tensor, see marlin_act_int8_process_scales) accumulated in int32, then x a_scales[m] in float;
    channel-wise scales (one group) stay floats applied at the end. Output in b_scales' dtype."""
    _, bits, bias_q, _ = _type(b_type_id)
    if bits != 4 or int(b_type_id) == FP8_ID:
        raise ValueError("int8 activations are covered for 4-bit weights (uint4b8, uint4) only")
    q = marlin_unpack(b_q_weight, k, n, bits, is_a_8bit=True)
    num_groups = b_scales.shape[0]
    s = _chunk_perm(b_scales, scale_perms()[1], inverse=True)  # a8 layouts always use the 32-permutation
    if b_zeros is not None and b_zeros.numel() > 0:
        zero = _chunk_perm(unpack_along(b_zeros, bits, 1), scale_perms()[0], inverse=True)
        zero = zero.repeat_interleave(k // num_groups, dim=0)
    else:
        zero = bias_q
    wq = (q - zero).to(torch.float64)  # small ints: float64 products and sums stay exact
    aq = a.to(torch.float64)
    if num_groups > 1:
        s_int = (s.contiguous().view(torch.int16).to(torch.int64) & 0xFFFF).to(torch.float64)
        gs = k // num_groups
        acc = torch.zeros(a.shape[0], n, dtype=torch.float64, device=a.device)
        for g in range(num_groups):
            acc += (aq[:, g * gs:(g + 1) * gs] @ wq[g * gs:(g + 1) * gs]) * s_int[g]
        out = acc.float() * a_scales.reshape(-1, 1).float()
    else:
        out = (aq @ wq).float() * a_scales.reshape(-1, 1).float() * s.float().reshape(1, n)
    if bias is not None:
        out = out + permute_bias(bias, inverse=True).float()
    return out.to(b_scales.dtype)


def _marlin_gemm_fp4(a, b_q_weight, b_scales, global_scale, k, n, bias, c):
    """NVFP4 / MXFP4 Marlin with 16-bit activations: w = e2m1(code) * group scale (* global scale for NVFP4)."""
    if a.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError("fp4 weights are covered with 16-bit activations only")
    codes = marlin_unpack(b_q_weight, k, n, 4)
    num_groups = b_scales.shape[0]
    if b_scales.dtype == torch.float8_e4m3fn:  # NVFP4
        s = nvfp4_scales_decode(b_scales)
        gscale = global_scale.reshape(-1)[0].double() / 2.0 ** (_fp4_exponent_bias(a.dtype) - 7)
    elif b_scales.dtype == torch.float8_e8m0fnu:  # MXFP4
        s = b_scales.float().reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(b_scales.shape)
        gscale = 1.0
    else:
        raise ValueError("fp4 weights need float8_e4m3fn (NVFP4) or float8_e8m0fnu (MXFP4) scales")
    s = permute_scales(s, num_groups, inverse=True).double()
    g = torch.arange(k, device=a.device) // (k // num_groups)
    w = e2m1_decode(codes).double() * s[g] * gscale
    out = a.double() @ w
    if bias is not None:
        out = out + permute_bias(bias, inverse=True).double()
    out = out.to(a.dtype)
    if c is not None:
        c.copy_(out)
        return c
    return out


def _marlin_gemm_hqq(a, b_q_weight, b_scales, b_zeros, b_type_id, k, n, bias, c):
    """HQQ (is_zp_float, fp16 only, uint4): float zero points [groups, N] permuted like grouped scales,
    w = (q - zp) * s in fp16."""
    if a.dtype != torch.float16 or int(b_type_id) != MARLIN_TYPES["uint4"][0] or b_zeros is None:
        raise ValueError("float zero points (HQQ) take fp16 activations, uint4 weights and b_zeros")
    q = marlin_unpack(b_q_weight, k, n, 4)
    num_groups = b_scales.shape[0]
    s = permute_scales(b_scales, num_groups, inverse=True)
    zp = permute_scales(b_zeros, num_groups, inverse=True)
    g = torch.arange(k, device=a.device) // (k // num_groups)
    w = (q.to(torch.float16) - zp[g].to(torch.float16)) * s[g].to(torch.float16)
    out = a.float() @ w.float()
    if bias is not None:
        out = out + permute_bias(bias, inverse=True).float()
    out = out.to(a.dtype)
    if c is not None:
        c.copy_(out)
        return c
    return out


def _marlin_gemm_fp8_act(a, b_q_weight, b_scales, a_scales, b_zeros, b_type_id, k, n, bias):
    """W4A8-FP8 Marlin (uint4b8 weights): fp8 x fp8 MMAs of a and the preprocessed weight codes, fp32
    accumulation with the (x 512) group or channel scales, then x a_scales[m]. Output in b_scales' dtype."""
    if int(b_type_id) != MARLIN_TYPES["uint4b8"][0] or (b_zeros is not None and b_zeros.numel() > 0):
        raise ValueError("fp8 activations are covered for uint4b8 weights only")
    vals = fp8_act_codes(marlin_unpack(b_q_weight, k, n, 4, is_a_8bit=True)).to(torch.float64) / 512
    num_groups = b_scales.shape[0]
    s = _chunk_perm(b_scales, scale_perms()[1], inverse=True).to(torch.float64)
    g = torch.arange(k, device=a.device) // (k // num_groups)
    out = (a.to(torch.float64) @ (vals * s[g])) * a_scales.reshape(-1, 1).to(torch.float64)
    if bias is not None:
        out = out + permute_bias(bias, inverse=True).double()
    return out.to(b_scales.dtype)


def gptq_marlin_24_gemm(
    a: torch.Tensor,
    b_q_weight: torch.Tensor,
    b_meta: torch.Tensor,
    b_scales: torch.Tensor,
    workspace: torch.Tensor,
    b_q_type: int,
    size_m: int,
    size_n: int,
    size_k: int,
) -> torch.Tensor:
    """vLLM gptq_marlin_24_gemm: fp16 a [M, K] @ dequant(2:4-sparse Marlin weight) [K, N]."""
    _, bits, bias, has_zp = _type(b_q_type)
    if has_zp:
        raise ValueError("gptq_marlin_24_gemm takes uint4b8 or uint8b128 weights")
    k, n = int(size_k), int(size_n)
    kept = marlin_unpack(b_q_weight, k // 2, n, bits, perm=weight_perm_24(bits))  # [K/2, N] with bias
    meta = b_meta.reshape(n, k // 16)  # the [K/32, 2N] tensor is a resized view of [N, K/16]
    codes = decompress_24((kept - bias).t().contiguous(), meta).t()  # [K, N] without bias
    num_groups = b_scales.shape[0]
    s = permute_scales(b_scales, num_groups, inverse=True, sparse24=True)
    g = torch.arange(k, device=a.device) // (k // num_groups)
    w = codes.to(a.dtype) * s[g].to(a.dtype)
    return (a.float() @ w.float()).to(a.dtype)
