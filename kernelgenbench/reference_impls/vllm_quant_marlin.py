"""References for vLLM's Marlin family at v0.13.0, with GPTQ/AWQ/Marlin packers and the 2:4 compressor.

Ops: gptq_marlin_gemm, gptq_marlin_24_gemm, gptq_marlin_moe_repack, awq_marlin_moe_repack (the last two are
Python functions in vllm/_custom_ops.py that call gptq_marlin_repack / awq_marlin_repack per expert),
marlin_int4_fp8_preprocess.

The layouts are those of vLLM's own Python packers, which its tests check the CUDA kernels against
(vllm/model_executor/layers/quantization/utils/marlin_utils.py, marlin_utils_test.py,
marlin_utils_test_24.py, quant_utils.py), re-derived here:
- GPTQ packing: int32 [K / pf, N], value of row k in word k // pf at bits (k % pf) * bits (pf = 32 / bits).
- AWQ packing: int32 [K, N / pf], columns interleaved inside every pf ([0,2,4,6,1,3,5,7] for 4 bits,
  [0,2,1,3] for 8), value i of a word at bits i * bits.
- Marlin weight: the [K, N] codes cut into 16x16 tiles (32x32 when is_a_8bit), tiles laid out row-major as
  [K / 16, 16 * N], every 1024 consecutive values permuted by the fragment permutation below, then
  pf consecutive values packed per int32 (value i at bits i * bits): int32 [K / 16, N * 16 / pf].
- Marlin scales [groups, N]: permuted in chunks of 64 (grouped) or 32 (channel-wise, one group);
  zero points (uint4/uint8 types) permuted like grouped scales, interleaved, then packed along N;
  bias permuted like channel-wise scales.
- Dequantization: w = (q - bias) * s for uint4b8 / uint8b128, (q - zp) * s for uint4 / uint8 with zero
  points, in the activation dtype; fp8 e4m3 weights (8-bit codes = fp8 bytes) are shifted into the
  activation format without their exponent bias, which vLLM folds into the scales (x 2**8 for fp16,
  x 2**120 for bf16), so w = (fp8 * 2**-bias) * s_fused; act-order rows are stored sorted by group (perm = argsort(g_idx)) and
  the kernel multiplies a[:, perm] by them. Accumulation in fp32, output in the activation dtype.
- 2:4 (gptq_marlin_24_gemm, fp16 only): the [K, N] codes have at most 2 non-zero (after removing the
  type's bias) of every 4 consecutive K per column; the kept values form [K / 2, N] (Marlin-packed with
  the 2:4 fragment permutation) and their positions a CUTLASS int16 metadata matrix (2 bits per kept
  value, 4 per int16), reordered as CUTLASS's ColumnMajorInterleaved<2> layout and viewed as [K / 32, 2 N].

- int8 activations (W4A8, a_scales = per-token float scales): 4-bit weights in 32x32 Marlin tiles
  (is_a_8bit), scales always under the 32-permutation, zero points without the column interleave; int8 MMAs
  on (q - zero), grouped scales used as the unsigned 16-bit integers their bits spell (vLLM stores
  round(s / max(s) * 4096) there and moves max(s) / 4096 into a_scales), int32 accumulation, then
  x a_scales[m] in float (channel-wise float scales last); output in b_scales' dtype.

- fp8 activations (W4A8-FP8, uint4b8 only): the weight nibbles are those of marlin_int4_fp8_preprocess
  (sign<<3 | magnitude) which the kernel reads as e4m3 subnormals +-(mag + sign) * 2**-9 = (q - 8) / 512, so
  vLLM multiplies the scales by 512; fp8 MMAs, fp32 accumulation, x a_scales[m]; output in b_scales' dtype.

- HQQ (is_zp_float, fp16, uint4): float zero points [groups, N] permuted like grouped scales,
  w = (q - zp) * s in fp16.

- fp4 e2m1 weights with 16-bit activations: NVFP4 (group 16; the e4m3 group scales travel as the S0E5M3
  bytes of half(s * 2**7), columns swapped [0,2,1,3] inside every 4 after the Marlin permutation; global
  scale x 2**(14 or 126 - 7) for fp16 / bf16) and MXFP4 (group 32, e8m0 scales, the same [0,2,1,3] swap):
  w = e2m1(code) * s (* global).

Not covered (the references raise): fp4 weights with fp8 activations and AWQ (uint4 + zero points) with
fp8 activations.
"""

from __future__ import annotations

import math

import torch

_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def scalar_type_id(exponent: int, mantissa: int, signed: bool, bias: int, finite_only: bool, nan_repr: int) -> int:
    """vllm.scalar_type.ScalarType.id: the fields packed little-end first (8, 8, 1, 32, 1, 8 bits)."""
    val, off = 0, 0
    for member, width in ((exponent, 8), (mantissa, 8), (int(signed), 1), (bias, 32), (int(finite_only), 1),
                          (nan_repr, 8)):
        val |= (int(member) & ((1 << width) - 1)) << off
        off += width
    return val


# name -> (id, bits, bias, has_zp); integer ScalarTypes keep the default nan_repr IEEE_754 (= 1).
MARLIN_TYPES = {
    "uint4b8": (scalar_type_id(0, 4, False, 8, False, 1), 4, 8, False),
    "uint8b128": (scalar_type_id(0, 8, False, 128, False, 1), 8, 128, False),
    "uint4": (scalar_type_id(0, 4, False, 0, False, 1), 4, 0, True),
    "uint8": (scalar_type_id(0, 8, False, 0, False, 1), 8, 0, True),
    # float8_e4m3fn = ScalarType.float_(4, 3, True, NanRepr.EXTD_RANGE_MAX_MIN = 2): codes are fp8 bytes
    "float8_e4m3fn": (scalar_type_id(4, 3, True, 0, True, 2), 8, 0, False),
}
FP8_ID = MARLIN_TYPES["float8_e4m3fn"][0]
# float4_e2m1f = ScalarType.float_(2, 1, True, NanRepr.NONE = 0): NVFP4 (fp8 e4m3 scales, group 16, global
# scale) or MXFP4 (e8m0 scales, group 32), told apart by the dtype of b_scales
FP4_ID = scalar_type_id(2, 1, True, 0, True, 0)
E2M1_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def fp8_exponent_bias(dtype: torch.dtype) -> int:
    """The power of two Marlin's fp8 dequantizer leaves out (fp8 bits shifted into fp16/bf16 exponent fields)
    and vLLM folds into the scales (fp8_fused_exponent_bias_into_scales): 8 for fp16, 120 for bf16."""
    target = 5 if dtype == torch.float16 else 8
    return 2 ** (target - 1) - 2 ** (4 - 1)
_BY_ID = {v[0]: (k, *v[1:]) for k, v in MARLIN_TYPES.items()}


def _type(type_id: int) -> tuple[str, int, int, bool]:
    if int(type_id) not in _BY_ID:
        raise ValueError(f"Marlin b_type id {type_id} is not covered by this reference (covered: {sorted(MARLIN_TYPES)})")
    return _BY_ID[int(type_id)]


def _interleave(bits: int) -> list[int]:
    return [0, 2, 4, 6, 1, 3, 5, 7] if bits == 4 else [0, 2, 1, 3]


# ---- permutations ----


def weight_perm(bits: int, is_a_8bit: bool = False) -> torch.Tensor:
    """The Marlin fragment permutation of 1024 values (get_weight_perm in marlin_utils_test.py)."""
    perm = []
    for i in range(32):
        col = i // 4
        if is_a_8bit:
            rows = [4 * (i % 4) + r for r in range(4)] + [4 * (i % 4 + 4) + r for r in range(4)]
            perm1 = [16 * row + col + 8 * block for block in (0, 1) for row in rows]
            perm += [p + 512 * j for j in range(2) for p in perm1]
        else:
            rows = [2 * (i % 4), 2 * (i % 4) + 1, 2 * (i % 4 + 4), 2 * (i % 4 + 4) + 1]
            perm1 = [16 * row + col + 8 * block for block in (0, 1) for row in rows]
            perm += [p + 256 * j for j in range(4) for p in perm1]
    if bits == 4:
        inter = [0, 4, 1, 5, 2, 6, 3, 7] if is_a_8bit else [0, 2, 4, 6, 1, 3, 5, 7]
    else:
        inter = [0, 1, 2, 3] if is_a_8bit else [0, 2, 1, 3]
    t = torch.tensor(perm).view(-1, len(inter))[:, inter]
    return t.reshape(-1)


def weight_perm_24(bits: int) -> torch.Tensor:
    """The 2:4 Marlin fragment permutation (get_weight_perm_24 in marlin_utils_test_24.py)."""
    perm = []
    for i in range(32):
        col = i // 4
        col_o = col // 2
        rows = [2 * (i % 4), 2 * (i % 4) + 1, 2 * (i % 4 + 4), 2 * (i % 4 + 4) + 1]
        perm1 = [16 * row + col_o * 256 + 8 * (col % 2) + 4 * block for block in (0, 1) for row in rows]
        perm += [p + j for j in range(4) for p in perm1]
    inter = _interleave(bits)
    return torch.tensor(perm).view(-1, len(inter))[:, inter].reshape(-1)


def scale_perms() -> tuple[list[int], list[int]]:
    """(grouped 64-permutation, channel-wise 32-permutation) of Marlin scales."""
    grouped = [i + 8 * j for i in range(8) for j in range(8)]
    single = [2 * i + j for i in range(4) for j in (0, 1, 8, 9, 16, 17, 24, 25)]
    return grouped, single


def scale_perms_24() -> tuple[list[int], list[int]]:
    grouped = [i * 8 + j for i in range(8) for j in (0, 4, 1, 5, 2, 6, 3, 7)]
    return grouped, list(range(64))


def _chunk_perm(x: torch.Tensor, perm: list[int], inverse: bool) -> torch.Tensor:
    shape = x.shape
    p = torch.tensor(perm, device=x.device)
    if inverse:
        p = torch.argsort(p)
    return x.reshape(-1, len(perm))[:, p].reshape(shape).contiguous()


def permute_scales(s: torch.Tensor, num_groups: int, *, inverse: bool = False, sparse24: bool = False) -> torch.Tensor:
    """marlin_permute_scales (or its inverse): grouped permutation when there is more than one group."""
    grouped, single = scale_perms_24() if sparse24 else scale_perms()
    return _chunk_perm(s, grouped if num_groups > 1 else single, inverse)


def permute_bias(b: torch.Tensor, *, inverse: bool = False) -> torch.Tensor:
    """marlin_permute_bias (or its inverse)."""
    return _chunk_perm(b, scale_perms()[1], inverse)


# ---- packers ----


def _to_int32(words: torch.Tensor) -> torch.Tensor:
    words = words & 0xFFFFFFFF
    return torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)


def pack_along(q: torch.Tensor, bits: int, dim: int) -> torch.Tensor:
    """pf consecutive values along dim per int32, value i at bits i * bits (pack_rows / pack_cols)."""
    pf = 32 // bits
    v = q.to(torch.int64).movedim(dim, -1)
    v = v.reshape(*v.shape[:-1], -1, pf) << (torch.arange(pf, device=q.device) * bits)
    return _to_int32(v.sum(-1)).movedim(-1, dim).contiguous()


def unpack_along(w: torch.Tensor, bits: int, dim: int) -> torch.Tensor:
    """Inverse of pack_along (int64 values)."""
    pf = 32 // bits
    v = (w.to(torch.int64) & 0xFFFFFFFF).movedim(dim, -1)
    v = (v.unsqueeze(-1) >> (torch.arange(pf, device=w.device) * bits)) & ((1 << bits) - 1)
    return v.reshape(*v.shape[:-2], -1).movedim(-1, dim).contiguous()


def gptq_pack(q: torch.Tensor, bits: int) -> torch.Tensor:
    """[K, N] codes -> GPTQ int32 [K / pf, N]."""
    return pack_along(q, bits, 0)


def awq_pack(q: torch.Tensor, bits: int) -> torch.Tensor:
    """[K, N] codes -> AWQ int32 [K, N / pf] (interleaved columns)."""
    return pack_along(_chunk_perm(q, _interleave(bits), inverse=False), bits, 1)


def awq_unpack(w: torch.Tensor, bits: int) -> torch.Tensor:
    return _chunk_perm(unpack_along(w, bits, 1), _interleave(bits), inverse=True)


def _tiles(k: int, n: int, is_a_8bit: bool) -> tuple[int, int]:
    return (32, 16) if is_a_8bit else (16, 16)


def marlin_pack(q: torch.Tensor, bits: int, is_a_8bit: bool = False, perm: torch.Tensor | None = None) -> torch.Tensor:
    """[K, N] codes -> Marlin int32 [K / 16, N * 16 / pf] (marlin_weights)."""
    k, n = q.shape
    tk, tn = _tiles(k, n, is_a_8bit)
    perm = weight_perm(bits, is_a_8bit) if perm is None else perm
    t = q.to(torch.int64).reshape(k // tk, tk, n // tn, tn).permute(0, 2, 1, 3).reshape(k // 16, n * 16)
    t = t.reshape(-1, perm.numel())[:, perm.to(q.device)].reshape(k // 16, n * 16)
    return pack_along(t, bits, 1)


def marlin_unpack(w: torch.Tensor, k: int, n: int, bits: int, is_a_8bit: bool = False,
                  perm: torch.Tensor | None = None) -> torch.Tensor:
    """Inverse of marlin_pack: [K, N] int64 codes."""
    tk, tn = _tiles(k, n, is_a_8bit)
    perm = weight_perm(bits, is_a_8bit) if perm is None else perm
    t = unpack_along(w, bits, 1).reshape(-1, perm.numel())
    out = torch.empty_like(t)
    out[:, perm.to(w.device)] = t
    return out.reshape(k // tk, n // tn, tk, tn).permute(0, 2, 1, 3).reshape(k, n)


def marlin_zero_points(zp: torch.Tensor, bits: int) -> torch.Tensor:
    """[groups, N] zero points -> Marlin int32 [groups, N / pf]."""
    z = _chunk_perm(zp, scale_perms()[0], inverse=False)
    z = _chunk_perm(z, _interleave(bits), inverse=False)
    return pack_along(z, bits, 1)


def marlin_zero_points_unpack(w: torch.Tensor, bits: int) -> torch.Tensor:
    z = _chunk_perm(unpack_along(w, bits, 1), _interleave(bits), inverse=True)
    return _chunk_perm(z, scale_perms()[0], inverse=True)


# ---- quantizers ----


def quantize_groups(w: torch.Tensor, bits: int, g_idx: torch.Tensor, num_groups: int, has_zp: bool):
    """vLLM-style round-to-nearest per group: (codes [K, N], scales [groups, N] float32, zp [groups, N] or None).

    Without zero points the codes carry the type's bias (uint4b8 / uint8b128: q = round(w / s) + 2**(bits-1))."""
    k, n = w.shape
    grouped = w.float()[torch.argsort(g_idx.long(), stable=True)].view(num_groups, k // num_groups, n)
    lo, hi = grouped.amin(1), grouped.amax(1)
    maxq = (1 << bits) - 1
    g = g_idx.long()
    if has_zp:
        s = (hi - lo).clamp(min=1e-5) / maxq
        zp = torch.round((lo / s).abs()).clamp(0, maxq)
        q = (torch.round(w.float() / s[g]) + zp[g]).clamp(0, maxq)
        return q.to(torch.int64), s, zp.to(torch.int64)
    half = 1 << (bits - 1)
    s = torch.maximum(hi.abs() / (half - 1), lo.abs() / half).clamp(min=1e-5)
    q = (torch.round(w.float() / s[g]) + half).clamp(0, maxq)
    return q.to(torch.int64), s, None


def dequantize(q: torch.Tensor, s: torch.Tensor, zp: torch.Tensor | None, bias: int, g: torch.Tensor,
               dtype: torch.dtype) -> torch.Tensor:
    """w = (q - zero) * s in dtype, zero = zp[g] or the type's bias."""
    zero = zp[g] if zp is not None else bias
    return (q - zero).to(dtype) * s[g].to(dtype)


def fp8_dequantize(codes: torch.Tensor, s_fused: torch.Tensor, g: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """Marlin fp8: w = (fp8 value * 2**-bias, exact in dtype) * fused scale, rounded once in dtype."""
    fp8 = codes.to(torch.uint8).view(torch.float8_e4m3fn).float()
    return (fp8 * 2.0 ** -fp8_exponent_bias(dtype)).to(dtype) * s_fused[g].to(dtype)


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


def marlin_zero_points_a8(zp: torch.Tensor, bits: int) -> torch.Tensor:
    """marlin_zero_points(..., is_a_8bit=True): grouped permutation, no column interleave, packed along N."""
    return pack_along(_chunk_perm(zp, scale_perms()[0], inverse=False), bits, 1)


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


def e2m1_decode(codes: torch.Tensor) -> torch.Tensor:
    """4-bit float codes (sign, 2 exponent bits, 1 mantissa bit) -> their float32 values."""
    mag = torch.tensor(E2M1_VALUES, device=codes.device)[codes & 7]
    return torch.where(codes & 8 != 0, -mag, mag)


def _fp4_exponent_bias(dtype: torch.dtype) -> int:
    return 2 ** ((5 if dtype == torch.float16 else 8) - 1) - 2 ** (2 - 1)  # 14 (fp16), 126 (bf16)


def nvfp4_scales_encode(s: torch.Tensor) -> torch.Tensor:
    """nvfp4_marlin_process_scales: Marlin-permuted non-negative e4m3 scales -> the S0E5M3 bytes the kernel reads
    (exponent and mantissa of half(s * 2**7)), pairs of columns swapped inside every 4 ([0, 2, 1, 3])."""
    h = s.to(torch.float16).reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(s.shape)
    bits = (h * 2**7).view(torch.int16).to(torch.int64) & 0xFFFF
    return ((bits >> 7) & 0xFF).to(torch.uint8).view(torch.float8_e4m3fn)


def nvfp4_scales_decode(b: torch.Tensor) -> torch.Tensor:
    """Inverse of nvfp4_scales_encode (float32, still Marlin-permuted)."""
    bits = b.view(torch.uint8).to(torch.int64) << 7
    h = torch.where(bits >= 2**15, bits - 2**16, bits).to(torch.int16).view(torch.float16).float() / 2**7
    return h.reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(b.shape)


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


def fp8_act_codes(pre: torch.Tensor) -> torch.Tensor:
    """Preprocessed uint4b8 nibbles (marlin_int4_fp8_preprocess) -> the signed values q - 8 they encode: the
    kernel turns nibble sign<<3 | mag into the e4m3 subnormal +-(mag + sign) * 2**-9, hence scales x 512."""
    sign = (pre >> 3) & 1
    mag = pre & 7
    return torch.where(sign == 1, -(mag + 1), mag)


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


def pack_free_rows(w: torch.Tensor, bits: int) -> torch.Tensor:
    """GPTQ int32 [K/pf, N] -> [K, N] codes."""
    return unpack_along(w, bits, 0)


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
