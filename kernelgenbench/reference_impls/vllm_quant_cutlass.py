"""References for vLLM's CUTLASS w8a8 ops at v0.13.0: cutlass_scaled_mm, cutlass_scaled_mm_azp, cutlass_pack_scale_fp8.

Semantics, from csrc/quantization/w8a8/cutlass/scaled_mm_entry.cu, Epilogues.md, the c3x epilogues and
tests/kernels/quantization/test_cutlass_scaled_mm.py (baseline_scaled_mm in tests/kernels/utils.py):
- cutlass_scaled_mm: out[M, N] = (a_scales * b_scales) * (a @ b) + bias, a int8/fp8 e4m3 [M, K] row-major,
  b the same dtype [K, N] column-major. Scales are float32: a_scales per tensor (1 element) or per token
  (M elements), b_scales per tensor or per output channel (N elements); or block-wise on sm90
  (a_scales [M, K/128], b_scales [K/128, N/128]), each block's scale multiplying its slice of K.
  The GEMM accumulates exactly in int32 (int8) or in fp32 (fp8); the epilogue works in fp32. The reference
  computes the exact product in float64 and rounds once to out.dtype.
- cutlass_scaled_mm_azp (int8 only, asymmetric activations): out = a_s * b_s * float(acc - azp_term) + bias,
  where acc = a @ b in int32, azp_term = azp[m] * azp_adj[n] when azp is given (per-token zero points,
  azp_adj = column sums of b) and azp_adj[n] otherwise (per-tensor, azp_adj = azp * column sums).
- cutlass_pack_scale_fp8 (the W4A8 scale pre-processing, cutlass::pack_scale_fp8 / packed_scale_t): every
  fp8 e4m3 scale s becomes 8 fp8 bytes [e4m3(-8s), e4m3(-7s), e4m3(-6s), e4m3(-5s), e4m3(-4s), e4m3(-3s),
  e4m3(-2s), -s] (the negative half of the int4 x scale lookup table); the result is a 1-D tensor of
  8 * numel elements (the CUDA op's shape; the op's registered fake says empty_like(scales), which is wrong).
  CUTLASS converts on the host with round-to-nearest-even; its behaviour past +-448 is not pinned down here,
  so inputs keep |8 s| <= 448.
"""

from __future__ import annotations

import math

import torch

_DTYPES = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "int8": torch.int8,
    "float8_e4m3fn": torch.float8_e4m3fn,
}


def _expand_scale(s: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """Broadcast a per-tensor / per-row / per-column / block scale to [rows, cols] (numpy-style groups)."""
    s = s.double()
    if s.numel() == 1:
        return s.reshape(1, 1).expand(rows, cols)
    if s.shape[0] not in (1, rows):
        s = s.repeat_interleave(math.ceil(rows / s.shape[0]), dim=0)[:rows]
    if s.shape[1] not in (1, cols):
        s = s.repeat_interleave(math.ceil(cols / s.shape[1]), dim=1)[:, :cols]
    return s.expand(rows, cols)


def _a_scale(a_scales: torch.Tensor, m: int, k: int) -> torch.Tensor:
    # 1-D scales of M elements are per token (rows of a); 2-D [M, K/128] are block-wise.
    if a_scales.numel() > 1 and a_scales.dim() < 2:
        return a_scales.double().reshape(m, 1).expand(m, k)
    return _expand_scale(a_scales, m, k)


def _b_scale(b_scales: torch.Tensor, k: int, n: int) -> torch.Tensor:
    # 1-D scales of N elements are per output channel (columns of b).
    if b_scales.numel() > 1 and b_scales.dim() < 2:
        return b_scales.double().reshape(1, n).expand(k, n)
    return _expand_scale(b_scales, k, n)


def cutlass_scaled_mm(
    out: torch.Tensor,
    a: torch.Tensor,
    b: torch.Tensor,
    a_scales: torch.Tensor,
    b_scales: torch.Tensor,
    bias: torch.Tensor | None,
) -> None:
    """vLLM cutlass_scaled_mm: out = (a_scales * a) @ (b_scales * b) + bias, written into out."""
    m, k = a.shape
    n = b.shape[1]
    a_dq = a.double() * _a_scale(a_scales, m, k)
    b_dq = b.double() * _b_scale(b_scales, k, n)
    res = a_dq @ b_dq
    if bias is not None:
        res = res + bias.double().reshape(1, n)
    out.copy_(res.to(out.dtype))


def cutlass_scaled_mm_azp(
    out: torch.Tensor,
    a: torch.Tensor,
    b: torch.Tensor,
    a_scales: torch.Tensor,
    b_scales: torch.Tensor,
    azp_adj: torch.Tensor,
    azp: torch.Tensor | None,
    bias: torch.Tensor | None,
) -> None:
    """vLLM cutlass_scaled_mm_azp: out = a_s * b_s * (a @ b - azp term) + bias, int8 inputs, written into out."""
    m, k = a.shape
    n = b.shape[1]
    acc = a.double() @ b.double()  # exact: |sum| < 2**53
    adj = azp_adj.double().reshape(1, n)
    term = azp.double().reshape(m, 1) * adj if azp is not None else adj
    sa = a_scales.double().reshape(-1, 1)
    sb = b_scales.double().reshape(1, -1)
    res = sa * sb * (acc - term)
    if bias is not None:
        res = res + bias.double().reshape(1, n)
    out.copy_(res.to(out.dtype))


_PACK_MULTIPLIERS = (-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0)


def cutlass_pack_scale_fp8(scales: torch.Tensor) -> torch.Tensor:
    """vLLM cutlass_pack_scale_fp8: each fp8 scale -> 8 fp8 values (-8s .. -2s, -s), flattened."""
    s = scales.reshape(-1).float()
    parts = [(s * c).to(torch.float8_e4m3fn) for c in _PACK_MULTIPLIERS]
    parts.append((-s).to(torch.float8_e4m3fn))
    return torch.stack(parts, dim=1).reshape(-1)


# ---- input generators ----


def _group_shape(spec, default) -> tuple[int, int]:
    if spec is None:
        return default
    if isinstance(spec, str):
        return {"tensor": (-1, -1), "per_token": (1, -1), "per_channel": (-1, 1), "block": (128, 128)}[spec]
    return int(spec[0]), int(spec[1])


def _scale_shape(shape: tuple[int, int], group: tuple[int, int]) -> tuple[int, int]:
    g = [shape[i] if group[i] < 0 else group[i] for i in range(2)]
    return math.ceil(shape[0] / g[0]), math.ceil(shape[1] / g[1])


def _quant_operand(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if dtype == torch.int8:
        return x.round().clamp(-128, 127).to(torch.int8)
    return x.clamp(-448, 448).to(dtype)


def make_cutlass_scaled_mm_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for cutlass_scaled_mm as the vLLM test builds them (int8 or fp8 operands, per-tensor/token/channel/block scales)."""
    gen = torch.Generator().manual_seed(seed)
    m, n, k = int(params["m"]), int(params["n"]), int(params["k"])
    qdtype = _DTYPES[params.get("a_dtype", "int8")]
    out_dtype = _DTYPES[params.get("out_dtype", "bfloat16")]
    ga = _group_shape(params.get("a_scale_group_shape"), (1, -1))
    gb = _group_shape(params.get("b_scale_group_shape"), (-1, 1))
    blockwise = ga[1] > 1 and ga[0] == 1 and gb[0] > 1
    mag = 5.0 if qdtype == torch.int8 else 1.0
    a = _quant_operand(torch.randn(m, k, generator=gen) * mag, qdtype)
    b = _quant_operand(torch.randn(n, k, generator=gen) * mag, qdtype).t()  # column-major [K, N]
    sa_shape = _scale_shape((m, k), ga)
    sb_shape = _scale_shape((k, n), gb)
    # Scales of about 1/(mag^2 sqrt(K)) keep outputs O(1) whatever K is.
    base = 1.0 / (mag * mag * math.sqrt(k))
    scale_a = (torch.rand(sa_shape, generator=gen) + 0.5) * math.sqrt(base)
    scale_b = (torch.rand(sb_shape, generator=gen) + 0.5) * math.sqrt(base)
    if blockwise:
        scale_a = scale_a.t().contiguous().t()  # M-major, as the sm90 block-wise kernel wants
        scale_b = scale_b.t().contiguous().t()
    bias = (torch.rand(n, generator=gen) * 2).to(out_dtype) if params.get("use_bias", False) else None
    out = torch.full((m, n), float("nan"), dtype=out_dtype)
    return {
        "out": out.to(device),
        "a": a.to(device),
        "b": b.to(device),
        "a_scales": scale_a.to(device),
        "b_scales": scale_b.to(device),
        "bias": None if bias is None else bias.to(device),
    }


def make_cutlass_scaled_mm_azp_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for cutlass_scaled_mm_azp as test_cutlass_int8_azp builds them (per-token or per-tensor zero points)."""
    gen = torch.Generator().manual_seed(seed)
    m, n, k = int(params["m"]), int(params["n"]), int(params["k"])
    out_dtype = _DTYPES[params.get("out_dtype", "bfloat16")]
    per_token = bool(params.get("azp_per_token", True))
    m_azp = m if per_token else 1
    scale_a = (torch.rand(m_azp, 1, generator=gen) + 0.5) / (10 * math.sqrt(k))
    scale_b = (torch.rand(1, n, generator=gen) + 0.5) / 10
    aq = (torch.rand(m, k, generator=gen) * 255 - 128).round().clamp(-128, 127).to(torch.int8)
    bq = (torch.rand(n, k, generator=gen) * 255 - 128).round().clamp(-128, 127).to(torch.int8).t()
    azp_a = torch.rand(m_azp, 1, generator=gen) * 10 + 1.5
    azp_i32 = (azp_a / (scale_a * math.sqrt(k))).clamp(-128, 127).to(torch.int8).to(torch.int32)
    colsum = bq.to(torch.int32).sum(dim=0, keepdim=True, dtype=torch.int32)
    if per_token:
        azp_adj, azp = colsum, azp_i32
    else:
        azp_adj, azp = azp_i32 * colsum, None
    bias = (torch.rand(n, generator=gen) * 10 + 2.5).to(out_dtype) if params.get("use_bias", False) else None
    out = torch.full((m, n), float("nan"), dtype=out_dtype)
    return {
        "out": out.to(device),
        "a": aq.to(device),
        "b": bq.to(device),
        "a_scales": scale_a.to(device),
        "b_scales": scale_b.to(device),
        "azp_adj": azp_adj.contiguous().to(device),
        "azp": None if azp is None else azp.contiguous().to(device),
        "bias": None if bias is None else bias.to(device),
    }


def make_cutlass_pack_scale_fp8_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for cutlass_pack_scale_fp8: fp8 group scales [K / group_size, N] of a W4A8 weight."""
    gen = torch.Generator().manual_seed(seed)
    if "shape" in params:
        _, n, k = (int(v) for v in params["shape"])
    else:
        n, k = int(params["n"]), int(params["k"])
    gs = int(params.get("group_size", 128))
    # Positive scales, magnitudes spread over several binades but with |8 s| well inside e4m3's range.
    s = torch.exp2(torch.rand(k // gs, n, generator=gen) * 12 - 8)
    return {"scales": s.to(torch.float8_e4m3fn).to(device)}
