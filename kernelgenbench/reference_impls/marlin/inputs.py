"""Input generators of vLLM's Marlin ops: dense weights quantized, packed and permuted as vLLM's own packers do."""

from __future__ import annotations

import math

import torch

from kernelgenbench.reference_impls.marlin.formats import (
    E2M1_VALUES,
    FP4_ID,
    FP8_ID,
    MARLIN_TYPES,
    _fp4_exponent_bias,
    fp8_exponent_bias,
    nvfp4_scales_encode,
)
from kernelgenbench.reference_impls.marlin.layout import (
    awq_pack,
    gptq_pack,
    marlin_pack,
    marlin_zero_points,
    marlin_zero_points_a8,
    permute_bias,
    permute_scales,
    weight_perm_24,
)
from kernelgenbench.reference_impls.marlin.quantize import dequantize, fp8_dequantize, quantize_groups
from kernelgenbench.reference_impls.marlin.repack import marlin_int4_fp8_preprocess
from kernelgenbench.reference_impls.marlin.sparse24 import compress_24, mask_24

_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


# ---- input generators ----


def _dense(k: int, n: int, gen: torch.Generator) -> torch.Tensor:
    # 1/sqrt(K): outputs O(1) for every K, so one tolerance fits all workloads.
    return torch.randn(k, n, generator=gen) / math.sqrt(k)


def _g_idx(k: int, gs: int, act_order: bool, gen: torch.Generator) -> torch.Tensor:
    g = (torch.arange(k) // gs).to(torch.int32)
    return g[torch.randperm(k, generator=gen)] if act_order else g


def make_marlin_problem(params: dict, gen: torch.Generator) -> dict:
    """Dense weight [K, N] and its Marlin-format quantization (GPTQ or AWQ style)."""
    k, n = int(params["k"]), int(params["n"])
    qtype = params.get("quant_type", "uint4b8")
    type_id, bits, bias, has_zp = MARLIN_TYPES[qtype]
    gs = int(params.get("group_size", 128))
    gs = k if gs in (-1, 0) else gs
    num_groups = k // gs
    act_order = bool(params.get("act_order", False)) and not has_zp and num_groups > 1 and qtype != "float8_e4m3fn"
    g_idx = _g_idx(k, gs, act_order, gen)
    w = _dense(k, n, gen)
    dtype = _DTYPES[params.get("dtype", "float16")]
    if type_id == FP8_ID:
        # marlin_quant_fp8_torch: per-group absmax / 448, codes = e4m3(w / s), scales with the exponent bias folded in
        s = (w.view(num_groups, gs, n).abs().amax(1) / 448).clamp(min=1e-8)
        q = (w / s[g_idx.long()]).to(torch.float8_e4m3fn).view(torch.uint8).to(torch.int64)
        s = (s * 2.0 ** fp8_exponent_bias(dtype)).to(dtype)
        zp = None
        w_dq = fp8_dequantize(q, s, g_idx.long(), dtype)
    else:
        q, s, zp = quantize_groups(w, bits, g_idx, num_groups, has_zp)
        s = s.to(dtype)
        w_dq = dequantize(q, s, zp, bias, g_idx.long(), dtype)
    if act_order:
        perm = torch.argsort(g_idx.long(), stable=True).to(torch.int32)
        q_sorted, g_sorted = q[perm.long()], g_idx[perm.long()]
    else:
        perm = torch.empty(0, dtype=torch.int32)
        q_sorted, g_sorted = q, torch.empty(0, dtype=torch.int32)
    return {
        "w": w, "w_dq": w_dq, "q": q, "s": s, "zp": zp, "g_idx": g_idx, "type_id": type_id, "bits": bits,
        "marlin_q": marlin_pack(q_sorted, bits),
        "marlin_s": permute_scales(s, num_groups),
        "marlin_zp": None if zp is None else marlin_zero_points(zp, bits),
        "g_idx_sorted": g_sorted, "perm": perm, "dtype": dtype, "act_order": act_order,
    }


def make_marlin_int8_inputs(params: dict, gen: torch.Generator) -> dict:
    """W4A8-INT8 inputs as test_gptq_marlin_gemm builds them: per-token int8 activations, 32x32 Marlin tiles,
    and for grouped scales the int16 scale encoding (s / max(s) * 4096, max(s) / 4096 moved into a_scales)."""
    m, k, n = int(params["m"]), int(params["k"]), int(params["n"])
    qtype = params.get("quant_type", "uint4b8")
    type_id, bits, bias, has_zp = MARLIN_TYPES[qtype]
    gs = int(params.get("group_size", 128))
    gs = k if gs in (-1, 0) else gs
    num_groups = k // gs
    dtype = _DTYPES[params.get("dtype", "float16")]
    g_idx = _g_idx(k, gs, False, gen)
    w = _dense(k, n, gen)
    q, s, zp = quantize_groups(w, bits, g_idx, num_groups, has_zp)
    s = s.to(dtype)
    x = torch.randn(m, k, generator=gen)
    a_s = (x.abs().amax(1, keepdim=True) / 127).clamp(min=1e-8)
    aq = torch.round(x / a_s).clamp(-127, 127).to(torch.int8)
    ms = permute_scales(s, 1)  # the single permutation whatever the group count (is_a_8bit)
    if num_groups > 1:
        smax = ms.float().max()
        a_s = a_s / 4096 * smax
        ms = (ms.float() / smax * 4096).round().to(torch.int16).view(dtype)
    empty = torch.empty(0, dtype=torch.int32)
    return {
        "a": aq, "c_or_none": None, "b_q_weight": marlin_pack(q, bits, is_a_8bit=True), "b_bias_or_none": None,
        "b_scales": ms, "a_scales": a_s.reshape(m).float(), "global_scale": None,
        "b_zeros_or_none": empty if zp is None else marlin_zero_points_a8(zp, bits),
        "g_idx_or_none": empty, "perm_or_none": empty,
        "workspace": torch.zeros(1024, dtype=torch.int32), "b_type_id": type_id, "size_m": m, "size_n": n,
        "size_k": k, "is_k_full": True, "use_atomic_add": False, "use_fp32_reduce": True, "is_zp_float": False,
    }


def _e2m1_nearest(x: torch.Tensor) -> torch.Tensor:
    mag = (x.abs().unsqueeze(-1) - torch.tensor(E2M1_VALUES)).abs().argmin(-1)
    return mag | ((x < 0).long() << 3)


def make_marlin_fp4_inputs(params: dict, gen: torch.Generator) -> dict:
    """NVFP4 (group 16, e4m3 scales + global scale) or MXFP4 (group 32, e8m0 scales) Marlin inputs,
    quantized from a dense weight as rand_marlin_weight_{nv,mx}fp4_like lay them out."""
    m, k, n = int(params["m"]), int(params["k"]), int(params["n"])
    nv = params["quant_type"] == "nvfp4"
    gs = 16 if nv else 32
    groups = k // gs
    dtype = _DTYPES[params.get("dtype", "bfloat16")]
    w = _dense(k, n, gen).view(groups, gs, n)
    amax = w.abs().amax(1)  # [groups, N]
    if nv:
        gscale = (amax.max() / 6 / 448).to(dtype).float()
        s = (amax / 6 / gscale).to(torch.float8_e4m3fn).float()
        unit = s * gscale
    else:
        s = torch.exp2(torch.ceil(torch.log2((amax / 6).clamp(min=2.0**-126))))  # e8m0: powers of two
        unit = s
    codes = _e2m1_nearest(w / unit.unsqueeze(1).clamp(min=1e-30)).view(k, n)
    packed = marlin_pack(codes, 4)
    ms = permute_scales(s.to(dtype), groups)
    if nv:
        b_scales = nvfp4_scales_encode(ms)
        global_scale = (gscale * 2.0 ** (_fp4_exponent_bias(dtype) - 7)).to(dtype).reshape(1)
    else:
        b_scales = ms.float().reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(ms.shape).to(torch.float8_e8m0fnu)
        global_scale = None
    empty = torch.empty(0, dtype=torch.int32)
    return {
        "a": torch.randn(m, k, generator=gen).to(dtype), "c_or_none": None, "b_q_weight": packed,
        "b_bias_or_none": None, "b_scales": b_scales, "a_scales": None, "global_scale": global_scale,
        "b_zeros_or_none": empty, "g_idx_or_none": empty, "perm_or_none": empty,
        "workspace": torch.zeros(1024, dtype=torch.int32), "b_type_id": FP4_ID, "size_m": m, "size_n": n,
        "size_k": k, "is_k_full": True, "use_atomic_add": False, "use_fp32_reduce": True, "is_zp_float": False,
    }


def make_marlin_hqq_inputs(params: dict, gen: torch.Generator) -> dict:
    """HQQ inputs (test_hqq_marlin_gemm): uint4 codes, fp16 scales and float zero points per group."""
    m, k, n = int(params["m"]), int(params["k"]), int(params["n"])
    gs = int(params.get("group_size", 64))
    groups = k // gs
    w = _dense(k, n, gen).view(groups, gs, n)
    lo, hi = w.amin(1), w.amax(1)
    s = ((hi - lo) / 15).clamp(min=1e-5).half()
    zp = (-lo / s.float()).half()  # HQQ keeps the zero point unrounded, in fp16
    q = torch.clamp(torch.round(w / s.float().unsqueeze(1) + zp.float().unsqueeze(1)), 0, 15).to(torch.int64)
    empty = torch.empty(0, dtype=torch.int32)
    return {
        "a": torch.randn(m, k, generator=gen).half(), "c_or_none": None,
        "b_q_weight": marlin_pack(q.view(k, n), 4), "b_bias_or_none": None,
        "b_scales": permute_scales(s, groups), "a_scales": None, "global_scale": None,
        "b_zeros_or_none": permute_scales(zp, groups), "g_idx_or_none": empty, "perm_or_none": empty,
        "workspace": torch.zeros(1024, dtype=torch.int32), "b_type_id": MARLIN_TYPES["uint4"][0],
        "size_m": m, "size_n": n, "size_k": k, "is_k_full": True, "use_atomic_add": False,
        "use_fp32_reduce": bool(params.get("use_fp32_reduce", True)), "is_zp_float": True,
    }


def make_marlin_fp8_act_inputs(params: dict, gen: torch.Generator) -> dict:
    """W4A8-FP8 inputs as test_gptq_marlin_gemm builds them: per-token fp8 activations (amax / 448),
    uint4b8 weights in 32x32 Marlin tiles run through marlin_int4_fp8_preprocess, scales x 512."""
    m, k, n = int(params["m"]), int(params["k"]), int(params["n"])
    type_id, bits, _, _ = MARLIN_TYPES["uint4b8"]
    gs = int(params.get("group_size", 128))
    gs = k if gs in (-1, 0) else gs
    dtype = _DTYPES[params.get("dtype", "bfloat16")]
    g_idx = _g_idx(k, gs, False, gen)
    q, s, _ = quantize_groups(_dense(k, n, gen), bits, g_idx, k // gs, False)
    packed = marlin_int4_fp8_preprocess(marlin_pack(q, bits, is_a_8bit=True), None, False)
    x = torch.randn(m, k, generator=gen)
    a_s = (x.abs().amax(1, keepdim=True) / 448).clamp(min=1e-8)
    empty = torch.empty(0, dtype=torch.int32)
    return {
        "a": (x / a_s).clamp(-448, 448).to(torch.float8_e4m3fn), "c_or_none": None, "b_q_weight": packed,
        "b_bias_or_none": None, "b_scales": permute_scales((s * 512).to(dtype), 1),
        "a_scales": a_s.reshape(m).float(), "global_scale": None, "b_zeros_or_none": empty,
        "g_idx_or_none": empty, "perm_or_none": empty, "workspace": torch.zeros(1024, dtype=torch.int32),
        "b_type_id": type_id, "size_m": m, "size_n": n, "size_k": k, "is_k_full": True,
        "use_atomic_add": False, "use_fp32_reduce": True, "is_zp_float": False,
    }


def make_gptq_marlin_gemm_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for gptq_marlin_gemm, built as vLLM's GPTQ/AWQ/FP8 Marlin layers build them (a_dtype int8: W4A8)."""
    gen = torch.Generator().manual_seed(seed)
    if params.get("quant_type") in ("nvfp4", "mxfp4"):
        args = make_marlin_fp4_inputs(params, gen)
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in args.items()}
    if params.get("is_zp_float", False):
        args = make_marlin_hqq_inputs(params, gen)
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in args.items()}
    if params.get("a_dtype") == "float8_e4m3fn":
        args = make_marlin_fp8_act_inputs(params, gen)
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in args.items()}
    if params.get("a_dtype") == "int8":
        args = make_marlin_int8_inputs(params, gen)
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in args.items()}
    p = make_marlin_problem(params, gen)
    m, k, n = int(params["m"]), int(params["k"]), int(params["n"])
    a = torch.randn(m, k, generator=gen).to(p["dtype"])
    bias = None
    if params.get("use_bias", False):
        bias = permute_bias(torch.randn(n, generator=gen).to(p["dtype"]))
    empty = torch.empty(0, dtype=torch.int32)
    return {
        "a": a.to(device),
        "c_or_none": None,
        "b_q_weight": p["marlin_q"].to(device),
        "b_bias_or_none": None if bias is None else bias.to(device),
        "b_scales": p["marlin_s"].to(device),
        "a_scales": None,
        "global_scale": None,
        "b_zeros_or_none": (empty if p["marlin_zp"] is None else p["marlin_zp"]).to(device),
        "g_idx_or_none": p["g_idx_sorted"].to(device),
        "perm_or_none": p["perm"].to(device),
        "workspace": torch.zeros(1024, dtype=torch.int32, device=device),
        "b_type_id": p["type_id"],
        "size_m": m,
        "size_n": n,
        "size_k": k,
        "is_k_full": bool(params.get("is_k_full", True)),
        "use_atomic_add": bool(params.get("use_atomic_add", False)),
        "use_fp32_reduce": bool(params.get("use_fp32_reduce", True)),
        "is_zp_float": False,
    }


def make_marlin_24_problem(params: dict, gen: torch.Generator) -> dict:
    """A 2:4-sparse dense weight, its GPTQ quantization and the Marlin 2:4 tensors (marlin_24_quantize)."""
    k, n = int(params["k"]), int(params["n"])
    qtype = params.get("quant_type", "uint4b8")
    type_id, bits, bias, _ = MARLIN_TYPES[qtype]
    gs = int(params.get("group_size", 128))
    gs = k if gs in (-1, 0) else gs
    num_groups = k // gs
    w = _dense(k, n, gen)
    w = w * mask_24(w)
    g_idx = (torch.arange(k) // gs).to(torch.int32)
    q, s, _ = quantize_groups(w, bits, g_idx, num_groups, False)
    q = torch.where(w == 0, torch.full_like(q, bias), q)  # pruned entries are exactly zero
    s = s.half()
    kept, meta = compress_24((q - bias).t().contiguous())
    kept = kept.t().contiguous() + bias  # [K/2, N]
    return {
        "w_dq": dequantize(q, s, None, bias, g_idx.long(), torch.float16), "q": q, "type_id": type_id,
        "marlin_q": marlin_pack(kept, bits, perm=weight_perm_24(bits)),
        "meta": meta.reshape(k // 32, 2 * n),  # meta.resize_(K/32, 2N) upstream: same memory, new shape
        "marlin_s": permute_scales(s, num_groups, sparse24=True),
    }


def make_gptq_marlin_24_gemm_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for gptq_marlin_24_gemm (fp16; uint4b8 / uint8b128; group size 128 or channel-wise)."""
    gen = torch.Generator().manual_seed(seed)
    if "mnk_factors" in params:
        mf, nf, kf = (int(v) for v in params["mnk_factors"])
        params = dict(params, m=mf, n=nf * int(params.get("n_chunk", 512)), k=kf * int(params.get("k_chunk", 128)))
    p = make_marlin_24_problem(params, gen)
    m, k, n = int(params["m"]), int(params["k"]), int(params["n"])
    a = torch.randn(m, k, generator=gen).half()
    return {
        "a": a.to(device),
        "b_q_weight": p["marlin_q"].to(device),
        "b_meta": p["meta"].to(device),
        "b_scales": p["marlin_s"].to(device),
        "workspace": torch.zeros(n // 128 * 64, dtype=torch.int32, device=device),
        "b_q_type": p["type_id"],
        "size_m": m,
        "size_n": n,
        "size_k": k,
    }


def _moe_codes(params: dict, gen: torch.Generator):
    e, k, n, bits = int(params["num_experts"]), int(params["k"]), int(params["n"]), int(params["num_bits"])
    return e, k, n, bits, torch.randint(0, 1 << bits, (e, k, n), generator=gen)


def make_gptq_marlin_moe_repack_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for gptq_marlin_moe_repack: GPTQ-packed expert weights and, for act-order, per-expert sort perms."""
    gen = torch.Generator().manual_seed(seed)
    if "nk_factors" in params:
        nf, kf = (int(v) for v in params["nk_factors"])
        params = dict(params, n=nf * int(params.get("n_chunk", 64)), k=kf * int(params.get("k_chunk", 128)))
    e, k, n, bits, q = _moe_codes(params, gen)
    is_a_8bit = bool(params.get("is_a_8bit", False))
    if params.get("act_order", False) and not is_a_8bit:
        gs = int(params.get("group_size", 128))
        perm = torch.stack([torch.argsort(_g_idx(k, gs, True, gen).long(), stable=True) for _ in range(e)])
        perm = perm.to(torch.int32)
    else:
        perm = torch.empty(e, 0, dtype=torch.int32)
    w = torch.stack([gptq_pack(q[i], bits) for i in range(e)])
    return {"b_q_weight": w.to(device), "perm": perm.to(device), "size_k": k, "size_n": n, "num_bits": bits,
            "is_a_8bit": is_a_8bit}


def make_awq_marlin_moe_repack_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for awq_marlin_moe_repack: AWQ-packed expert weights (perm is unused upstream: empty)."""
    gen = torch.Generator().manual_seed(seed)
    if "nk_factors" in params:
        nf, kf = (int(v) for v in params["nk_factors"])
        params = dict(params, n=nf * int(params.get("n_chunk", 64)), k=kf * int(params.get("k_chunk", 128)))
    e, k, n, bits, q = _moe_codes(params, gen)
    w = torch.stack([awq_pack(q[i], bits) for i in range(e)])
    return {"b_q_weight": w.to(device), "perm": torch.empty(e, 0, dtype=torch.int32).to(device), "size_k": k,
            "size_n": n, "num_bits": bits, "is_a_8bit": bool(params.get("is_a_8bit", False))}


def make_marlin_int4_fp8_preprocess_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for marlin_int4_fp8_preprocess as the vLLM tests build them (int8 byte pairs viewed as int32)."""
    gen = torch.Generator().manual_seed(seed)
    k, n = int(params.get("k", 256)), int(params.get("n", 256))
    u = torch.randint(0, 16, (k, n), generator=gen, dtype=torch.int32)
    packed = (u[:, ::2] * 16 + u[:, 1::2]).to(torch.int8).view(torch.int32)
    zeros = None
    if params.get("with_zp", False):
        gs = int(params.get("group_size", 128))
        z = torch.randint(0, 16, (k // gs, n), generator=gen, dtype=torch.int32)
        zeros = (z[:, ::2] * 16 + z[:, 1::2]).to(torch.int8).view(torch.int32)
    return {"qweight": packed.contiguous().to(device), "qzeros_or_none": None if zeros is None else zeros.contiguous().to(device),
            "inplace": False}
