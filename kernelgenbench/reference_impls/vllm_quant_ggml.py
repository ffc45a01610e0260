"""References for vLLM's GGUF/GGML ops at v0.13.0, with per-block-type quantizers/packers.

Ops: ggml_dequantize, ggml_mul_mat_vec_a8, ggml_mul_mat_a8, ggml_moe_a8, ggml_moe_a8_vec
(csrc/quantization/gguf/gguf_kernel.cu). A GGUF weight is a uint8 tensor [rows, bytes per row] of
consecutive blocks (struct layouts in csrc/quantization/gguf/ggml-common.h, element order as in
dequantize.cuh and gguf-py's quants.py); `type` is the GGMLQuantizationType id.

Block types here: Q4_0 (2), Q4_1 (3), Q5_0 (6), Q5_1 (7), Q8_0 (8), Q2_K (10), Q3_K (11), Q4_K (12),
Q5_K (13), Q6_K (14) -- all that ggml_mul_mat_a8 and ggml_moe_a8 accept. The i-quant types (16-23, 29)
that ggml_dequantize / *_vec_a8 also accept are not implemented here: the references raise for them.

The *_a8 ops first quantize X to Q8_1 (blocks of 32: d = amax / 127, q = roundf(x / d), d stored as half),
then take integer dot products with the weight's codes and apply the float scales. The references compute
dequant(W) @ dequant(Q8_1(X)) in float32 and round once to X.dtype. The kernels' offset/min terms of
Q4_0/Q4_1/Q5_x use the block sum of the unquantized X (held in half), which the reference does not model;
that and summation order are within the tolerance, not bit-exact.
"""

from __future__ import annotations

import math

import torch

QK_K = 256
# type id -> (name, elements per block, bytes per block)
GGML_TYPES = {
    2: ("Q4_0", 32, 18),
    3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22),
    7: ("Q5_1", 32, 24),
    8: ("Q8_0", 32, 34),
    10: ("Q2_K", 256, 84),
    11: ("Q3_K", 256, 110),
    12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176),
    14: ("Q6_K", 256, 210),
}
_BY_NAME = {v[0]: k for k, v in GGML_TYPES.items()}


def ggml_type_id(t) -> int:
    """Accept a type id, a name ('Q4_K') or an enum's text ('GGMLQuantizationType.Q4_K')."""
    if isinstance(t, str):
        name = t.rsplit(".", 1)[-1]
        if name.isdigit():
            return int(name)
        if name not in _BY_NAME:
            raise ValueError(f"GGML type {t!r} is not supported by this reference; use one of {sorted(_BY_NAME)}")
        return _BY_NAME[name]
    return int(t)


def _half(b: torch.Tensor) -> torch.Tensor:
    """[nb, 2] uint8 (little-endian half) -> [nb, 1] float32."""
    return b.contiguous().view(torch.float16).float()


def _half_bytes(x: torch.Tensor) -> torch.Tensor:
    """[nb] float -> [nb, 2] uint8 (x rounded to half)."""
    return x.half().reshape(-1, 1).view(torch.uint8)


def _nibbles(qs: torch.Tensor) -> torch.Tensor:
    """[nb, n] bytes -> [nb, 2n]: the low nibbles of all bytes, then the high nibbles."""
    q = qs.long()
    return torch.cat([q & 0xF, q >> 4], dim=1)


def _u32_bits(b: torch.Tensor, nbits: int = 32) -> torch.Tensor:
    """[nb, nbits/8] uint8 (little endian) -> [nb, nbits] bits, bit i of the word at column i."""
    bits = (b.long().unsqueeze(-1) >> torch.arange(8)) & 1  # [nb, bytes, 8]
    return bits.reshape(b.shape[0], nbits)


def _bits_to_bytes(bits: torch.Tensor) -> torch.Tensor:
    """Inverse of _u32_bits: [nb, nbits] -> [nb, nbits/8] uint8."""
    b = bits.long().reshape(bits.shape[0], -1, 8)
    return (b << torch.arange(8)).sum(-1).to(torch.uint8)


def _k_scale_min(s: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The 12-byte Q4_K/Q5_K field -> 8 six-bit scales and 8 six-bit mins."""
    s = s.long()
    d_, m_, md = s[:, 0:4], s[:, 4:8], s[:, 8:12]
    sc = torch.cat([d_ & 63, (md & 15) | ((d_ >> 2) & 48)], dim=1)
    mn = torch.cat([m_ & 63, (md >> 4) | ((m_ >> 2) & 48)], dim=1)
    return sc, mn


def _k_scale_min_pack(sc: torch.Tensor, mn: torch.Tensor) -> torch.Tensor:
    lo_s, hi_s, lo_m, hi_m = sc[:, :4], sc[:, 4:], mn[:, :4], mn[:, 4:]
    d_ = lo_s | ((hi_s >> 4) << 6)
    m_ = lo_m | ((hi_m >> 4) << 6)
    md = (hi_s & 15) | ((hi_m & 15) << 4)
    return torch.cat([d_, m_, md], dim=1).to(torch.uint8)


# ---- block fields: [nb, bytes] uint8 -> (scale-like fields, integer codes) ----
# Each decoder returns (kind, fields) where the dense value is given by _FORMULAS[kind]; the float32
# formula serves the a8 GEMMs (which apply float scales to integer dots), the half formula mirrors
# dequantize.cuh, which ggml_dequantize runs in half arithmetic (dfloat = half) before converting.


def _f_q4_0(b):
    return "scaled", {"d": _half(b[:, 0:2]), "q": _nibbles(b[:, 2:18]) - 8}


def _f_q4_1(b):
    return "affine", {"d": _half(b[:, 0:2]), "m": _half(b[:, 2:4]), "q": _nibbles(b[:, 4:20])}


def _q5(qh, qs):
    return _nibbles(qs) | (_u32_bits(qh) << 4)


def _f_q5_0(b):
    return "scaled", {"d": _half(b[:, 0:2]), "q": _q5(b[:, 2:6], b[:, 6:22]) - 16}


def _f_q5_1(b):
    return "affine", {"d": _half(b[:, 0:2]), "m": _half(b[:, 2:4]), "q": _q5(b[:, 4:8], b[:, 8:24])}


def _f_q8_0(b):
    return "scaled", {"d": _half(b[:, 0:2]), "q": b[:, 2:34].contiguous().view(torch.int8).long()}


def _crumbs(qs: torch.Tensor, groups: int) -> torch.Tensor:
    """[nb, 32*groups] bytes -> [nb, groups, 4, 32] 2-bit fields (shifts 0, 2, 4, 6)."""
    q = qs.long().reshape(-1, groups, 1, 32)
    return (q >> torch.tensor([0, 2, 4, 6]).view(1, 1, 4, 1)) & 3


def _f_q2_k(b):
    nb = b.shape[0]
    sc = b[:, 0:16].long()
    q = _crumbs(b[:, 16:80], 2).reshape(nb, 16, 16)
    return "k_min", {"d": _half(b[:, 80:82]), "dmin": _half(b[:, 82:84]), "sc": sc & 15, "mn": sc >> 4, "q": q}


def _q3k_scales(s: torch.Tensor) -> torch.Tensor:
    s = s.long()
    lo = torch.cat([s[:, 0:8] & 15, s[:, 0:8] >> 4], dim=1)  # [nb, 16]
    hi = ((s[:, 8:12].unsqueeze(1) >> torch.tensor([0, 2, 4, 6]).view(1, 4, 1)) & 3).reshape(-1, 16)
    return (lo | (hi << 4)) - 32


def _f_q3_k(b):
    nb = b.shape[0]
    ql = _crumbs(b[:, 32:96], 2).reshape(nb, 16, 16)
    hm = ((b[:, 0:32].long().reshape(nb, 1, 1, 32) >> torch.arange(8).view(1, 1, 8, 1)) & 1).reshape(nb, 16, 16)
    return "k_sub", {"d": _half(b[:, 108:110]), "sc": _q3k_scales(b[:, 96:108]), "q": ql - ((hm ^ 1) << 2)}


def _q4k_low(qs: torch.Tensor) -> torch.Tensor:
    q = qs.long().reshape(-1, 4, 1, 32)
    return ((q >> torch.tensor([0, 4]).view(1, 1, 2, 1)) & 15).reshape(-1, 8, 32)


def _f_q4_k(b):
    sc, mn = _k_scale_min(b[:, 4:16])
    return "k_min_pre", {"d": _half(b[:, 0:2]), "dmin": _half(b[:, 2:4]), "sc": sc, "mn": mn,
                         "q": _q4k_low(b[:, 16:144])}


def _f_q5_k(b):
    nb = b.shape[0]
    sc, mn = _k_scale_min(b[:, 4:16])
    qh = ((b[:, 16:48].long().reshape(nb, 1, 1, 32) >> torch.arange(8).view(1, 1, 8, 1)) & 1).reshape(nb, 8, 32)
    return "k_min_pre", {"d": _half(b[:, 0:2]), "dmin": _half(b[:, 2:4]), "sc": sc, "mn": mn,
                         "q": _q4k_low(b[:, 48:176]) | (qh << 4)}


def _f_q6_k(b):
    nb = b.shape[0]
    ql = b[:, 0:128].long().reshape(nb, 2, 1, 64)
    ql = ((ql >> torch.tensor([0, 4]).view(1, 1, 2, 1)) & 15).reshape(nb, 8, 32)
    qh = _crumbs(b[:, 128:192], 2).reshape(nb, 8, 32)
    q = ((ql | (qh << 4)) - 32).reshape(nb, 16, 16)
    sc = b[:, 192:208].contiguous().view(torch.int8).long()
    return "k_q6", {"d": _half(b[:, 208:210]), "sc": sc, "q": q}


def _h(x: torch.Tensor) -> torch.Tensor:
    # float32 holds the exact product/sum of two halves; .half() then rounds it as the __h* intrinsics do.
    return x.half().float()


def _formula(kind: str, f: dict, half: bool) -> torch.Tensor:
    r = _h if half else (lambda t: t)
    q = f["q"].float()
    nb = q.shape[0]
    if kind == "scaled":  # d * q
        return r(f["d"] * q)
    if kind == "affine":  # d * q + m
        return r(r(f["d"] * q) + f["m"])
    if kind == "k_min":  # Q2_K: d * (sc * q) - dmin * mn, per 16
        a = r(f["d"].unsqueeze(-1) * (f["sc"].float().unsqueeze(-1) * q))
        return r(a - r(f["dmin"] * f["mn"].float()).unsqueeze(-1)).reshape(nb, -1)
    if kind == "k_sub":  # Q3_K: (d * sc) * q
        return r(r(f["d"] * f["sc"].float()).unsqueeze(-1) * q).reshape(nb, -1)
    if kind == "k_min_pre":  # Q4_K/Q5_K: (d * sc) * q - (dmin * mn), per 32
        d1 = r(f["d"] * f["sc"].float()).unsqueeze(-1)
        m1 = r(f["dmin"] * f["mn"].float()).unsqueeze(-1)
        return r(r(d1 * q) - m1).reshape(nb, -1)
    if kind == "k_q6":  # Q6_K: d * (sc * q)
        return r(f["d"].unsqueeze(-1) * r(f["sc"].float().unsqueeze(-1) * q)).reshape(nb, -1)
    raise AssertionError(kind)


_FIELDS = {2: _f_q4_0, 3: _f_q4_1, 6: _f_q5_0, 7: _f_q5_1, 8: _f_q8_0,
           10: _f_q2_k, 11: _f_q3_k, 12: _f_q4_k, 13: _f_q5_k, 14: _f_q6_k}


def dequantize_blocks(w: torch.Tensor, qtype: int, *, half: bool = False) -> torch.Tensor:
    """A GGUF weight [rows, bytes per row] uint8 -> dense float32 [rows, elements per row].

    half=True rounds every step to half as dequantize.cuh does (the ggml_dequantize kernel)."""
    if qtype not in _FIELDS:
        raise ValueError(f"GGML type {qtype} is not implemented by this reference (supported: {sorted(_FIELDS)})")
    _, _, tsize = GGML_TYPES[qtype]
    rows = w.shape[0]
    kind, fields = _FIELDS[qtype](w.reshape(-1, tsize).cpu())
    return _formula(kind, fields, half).reshape(rows, -1)


# ---- quantizers: dense [nb, elements] float32 -> (blocks [nb, bytes] uint8, dense equivalent) ----


def _safe_div(x, d):
    return torch.where(d == 0, torch.zeros_like(x), x / torch.where(d == 0, torch.ones_like(d), d))


def _pack_nibbles(q: torch.Tensor) -> torch.Tensor:
    """Inverse of _nibbles: [nb, 2n] values < 16 -> [nb, n] bytes."""
    n = q.shape[1] // 2
    return ((q[:, :n] & 15) | ((q[:, n:] & 15) << 4)).to(torch.uint8)


def _qz_q4_0(x):
    amax_idx = x.abs().argmax(1, keepdim=True)
    d = (x.gather(1, amax_idx) / -8).half().float()
    q = torch.clamp(torch.round(_safe_div(x, d)) + 8, 0, 15).long()
    return torch.cat([_half_bytes(d), _pack_nibbles(q)], 1), d * (q - 8).float()


def _qz_q4_1(x):
    lo, hi = x.amin(1, keepdim=True), x.amax(1, keepdim=True)
    d = ((hi - lo) / 15).half().float()
    m = lo.half().float()
    q = torch.clamp(torch.round(_safe_div(x - m, d)), 0, 15).long()
    return torch.cat([_half_bytes(d), _half_bytes(m), _pack_nibbles(q)], 1), d * q.float() + m


def _qz_q5_0(x):
    amax_idx = x.abs().argmax(1, keepdim=True)
    d = (x.gather(1, amax_idx) / -16).half().float()
    q = torch.clamp(torch.round(_safe_div(x, d)) + 16, 0, 31).long()
    qh = _bits_to_bytes(q >> 4)
    return torch.cat([_half_bytes(d), qh, _pack_nibbles(q & 15)], 1), d * (q - 16).float()


def _qz_q5_1(x):
    lo, hi = x.amin(1, keepdim=True), x.amax(1, keepdim=True)
    d = ((hi - lo) / 31).half().float()
    m = lo.half().float()
    q = torch.clamp(torch.round(_safe_div(x - m, d)), 0, 31).long()
    qh = _bits_to_bytes(q >> 4)
    return torch.cat([_half_bytes(d), _half_bytes(m), qh, _pack_nibbles(q & 15)], 1), d * q.float() + m


def _qz_q8_0(x):
    d = (x.abs().amax(1, keepdim=True) / 127).half().float()
    q = torch.clamp(torch.round(_safe_div(x, d)), -128, 127).long()
    return torch.cat([_half_bytes(d), q.to(torch.int8).view(torch.uint8)], 1), d * q.float()


def _pack_crumbs(q: torch.Tensor, groups: int) -> torch.Tensor:
    """Inverse of _crumbs: [nb, groups, 4, 32] 2-bit values -> [nb, 32*groups] bytes."""
    b = (q.long() << torch.tensor([0, 2, 4, 6]).view(1, 1, 4, 1)).sum(2)
    return b.reshape(q.shape[0], -1).to(torch.uint8)


def _super_scale(v: torch.Tensor, levels: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Quantize non-negative per-sub-block values v [nb, s] to ints 0..levels with one half scale per block."""
    d = (v.amax(1, keepdim=True) / levels).half().float()
    return d, torch.clamp(torch.round(_safe_div(v, d)), 0, levels).long()


def _qz_q2_k(x):
    nb = x.shape[0]
    xs = x.reshape(nb, 16, 16)
    lo = xs.amin(2).clamp(max=0)
    hi = xs.amax(2)
    d, sc = _super_scale((hi - lo) / 3, 15)
    dmin, mn = _super_scale(-lo, 15)
    dl = (d * sc.float()).unsqueeze(-1)
    ml = (dmin * mn.float()).unsqueeze(-1)
    q = torch.clamp(torch.round(_safe_div(xs + ml, dl.expand_as(xs))), 0, 3).long()
    qs = _pack_crumbs(q.reshape(nb, 2, 4, 32), 2)
    blocks = torch.cat([(sc | (mn << 4)).to(torch.uint8), qs, _half_bytes(d), _half_bytes(dmin)], 1)
    return blocks, (dl * q.float() - ml).reshape(nb, 256)


def _qz_q3_k(x):
    nb = x.shape[0]
    xs = x.reshape(nb, 16, 16)
    amax_idx = xs.abs().argmax(2, keepdim=True)
    sf = xs.gather(2, amax_idx).squeeze(2) / -4  # signed, so the extreme lands on -4
    d = (sf.abs().amax(1, keepdim=True) / 31).half().float()
    sc = torch.clamp(torch.round(_safe_div(sf, d)), -32, 31).long()
    dl = (d * sc.float()).unsqueeze(-1)
    q = torch.clamp(torch.round(_safe_div(xs, dl.expand_as(xs))), -4, 3).long()
    hbit = (q >= 0).long()  # the -4 offset applies where the hmask bit is 0
    ql = q + 4 * (1 - hbit)
    qs = _pack_crumbs(ql.reshape(nb, 2, 4, 32), 2)
    hmask = (hbit.reshape(nb, 8, 32) << torch.arange(8).view(1, 8, 1)).sum(1).to(torch.uint8)
    s = sc + 32
    lsc = ((s[:, 0:8] & 15) | ((s[:, 8:16] & 15) << 4)).to(torch.uint8)
    hsc = (((s >> 4) & 3).reshape(nb, 4, 4) << torch.tensor([0, 2, 4, 6]).view(1, 4, 1)).sum(1).to(torch.uint8)
    blocks = torch.cat([hmask, qs, lsc, hsc, _half_bytes(d)], 1)
    return blocks, (dl * q.float()).reshape(nb, 256)


def _pack_q4k_low(q: torch.Tensor) -> torch.Tensor:
    """Inverse of _q4k_low: [nb, 8, 32] nibbles -> [nb, 128] bytes."""
    q = q.long().reshape(-1, 4, 2, 32)
    return (q[:, :, 0] | (q[:, :, 1] << 4)).reshape(q.shape[0], 128).to(torch.uint8)


def _qz_q45_k(x, qmax):
    nb = x.shape[0]
    xs = x.reshape(nb, 8, 32)
    lo = xs.amin(2).clamp(max=0)
    hi = xs.amax(2)
    d, sc = _super_scale((hi - lo) / qmax, 63)
    dmin, mn = _super_scale(-lo, 63)
    dl = (d * sc.float()).unsqueeze(-1)
    ml = (dmin * mn.float()).unsqueeze(-1)
    q = torch.clamp(torch.round(_safe_div(xs + ml, dl.expand_as(xs))), 0, qmax).long()
    head = torch.cat([_half_bytes(d), _half_bytes(dmin), _k_scale_min_pack(sc, mn)], 1)
    return head, q, (dl * q.float() - ml).reshape(nb, 256)


def _qz_q4_k(x):
    head, q, dense = _qz_q45_k(x, 15)
    return torch.cat([head, _pack_q4k_low(q)], 1), dense


def _qz_q5_k(x):
    head, q, dense = _qz_q45_k(x, 31)
    qh = ((q >> 4) << torch.arange(8).view(1, 8, 1)).sum(1).to(torch.uint8)  # [nb, 32]
    return torch.cat([head, qh, _pack_q4k_low(q & 15)], 1), dense


def _qz_q6_k(x):
    nb = x.shape[0]
    xs = x.reshape(nb, 16, 16)
    amax_idx = xs.abs().argmax(2, keepdim=True)
    sf = xs.gather(2, amax_idx).squeeze(2) / -32
    d = (sf.abs().amax(1, keepdim=True) / 127).half().float()
    sc = torch.clamp(torch.round(_safe_div(sf, d)), -128, 127).long()
    dl = (d * sc.float()).unsqueeze(-1)
    q = torch.clamp(torch.round(_safe_div(xs, dl.expand_as(xs))), -32, 31).long()
    u = (q + 32).reshape(nb, 8, 32)
    low = (u & 15).reshape(nb, 2, 2, 2, 32)  # [half, nibble, chunk, 32]
    ql = (low[:, :, 0] | (low[:, :, 1] << 4)).reshape(nb, 128)
    qh = _pack_crumbs((u >> 4).reshape(nb, 2, 4, 32), 2)
    blocks = torch.cat([ql.to(torch.uint8), qh, sc.to(torch.int8).view(torch.uint8), _half_bytes(d)], 1)
    return blocks, (dl * q.float()).reshape(nb, 256)


_QUANT = {2: _qz_q4_0, 3: _qz_q4_1, 6: _qz_q5_0, 7: _qz_q5_1, 8: _qz_q8_0,
          10: _qz_q2_k, 11: _qz_q3_k, 12: _qz_q4_k, 13: _qz_q5_k, 14: _qz_q6_k}


def quantize_weight(w: torch.Tensor, qtype: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Dense [rows, cols] -> (GGUF bytes [rows, bytes per row] uint8, the dense float32 weight they encode)."""
    if qtype not in _QUANT:
        raise ValueError(f"GGML type {qtype} has no quantizer here (supported: {sorted(_QUANT)})")
    _, bsize, _ = GGML_TYPES[qtype]
    rows, cols = w.shape
    if cols % bsize:
        raise ValueError(f"{cols} columns are not a multiple of the {GGML_TYPES[qtype][0]} block size {bsize}")
    blocks, dense = _QUANT[qtype](w.float().reshape(-1, bsize))
    return blocks.reshape(rows, -1).contiguous(), dense.reshape(rows, cols)


# ---- activations as the a8 kernels see them ----


def q8_1_roundtrip(x: torch.Tensor) -> torch.Tensor:
    """X [n, k] -> the float32 values the kernels multiply: Q8_1 blocks of 32 (roundf, d = amax/127 as half)."""
    xf = x.float()
    n, k = xf.shape
    pad = (-k) % 32
    xb = torch.nn.functional.pad(xf, (0, pad)).reshape(n, -1, 32)
    d = xb.abs().amax(-1, keepdim=True) / 127
    r = _safe_div(xb, d)
    q = torch.sign(r) * torch.floor(r.abs() + 0.5)  # roundf: halves away from zero
    return (q * d.half().float()).reshape(n, -1)[:, :k]


# ---- references ----


def ggml_dequantize(W: torch.Tensor, type: int, m: int, n: int, dtype: torch.dtype | None) -> torch.Tensor:
    """vLLM ggml_dequantize: the dense [m, n] weight, computed in half as the kernel does, then cast to dtype."""
    dense = dequantize_blocks(W.reshape(m, -1), int(type), half=True)
    return dense.reshape(m, n).to(dtype or torch.float16).to(W.device)


def _mm_a8(W: torch.Tensor, X: torch.Tensor, qtype: int) -> torch.Tensor:
    w = dequantize_blocks(W, qtype)  # [row, col]
    return (q8_1_roundtrip(X.cpu()) @ w.t()).to(X.dtype).to(X.device)


def ggml_mul_mat_vec_a8(W: torch.Tensor, X: torch.Tensor, type: int, row: int) -> torch.Tensor:
    """vLLM ggml_mul_mat_vec_a8 (MMVQ, few rows of X): Y [vecs, row] = Q8_1(X) @ dequant(W)^T."""
    return _mm_a8(W[:row], X, int(type))


def ggml_mul_mat_a8(W: torch.Tensor, X: torch.Tensor, type: int, row: int) -> torch.Tensor:
    """vLLM ggml_mul_mat_a8 (MMQ): Y [batch, row] = Q8_1(X) @ dequant(W)^T."""
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
    _, _, tsize = GGML_TYPES[qtype]
    block = ggml_moe_get_block_size(qtype)
    xq = q8_1_roundtrip(X.cpu())
    y = torch.zeros(tokens * top_k, row)
    ids = sorted_token_ids.cpu().long()
    experts = expert_ids.cpu().long()
    total = min(int(num_tokens_post_padded.reshape(-1)[0]), ids.numel())
    for blk in range(math.ceil(total / block)):
        e = int(experts[blk])
        if e < 0 or e > 255:
            continue
        sel = ids[blk * block : (blk + 1) * block]
        sel = sel[sel < tokens * top_k]
        if sel.numel() == 0:
            continue
        w = dequantize_blocks(W[e, :row], qtype)
        y[sel] = xq[sel // top_k] @ w.t()
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


def moe_align_block_size(topk_ids: torch.Tensor, block_size: int, num_experts: int):
    """vLLM's moe_align_block_size: ids grouped by expert, each group padded to block_size with numel."""
    flat = topk_ids.reshape(-1).long()
    numel = flat.numel()
    ids, experts = [], []
    for e in range(num_experts):
        sel = (flat == e).nonzero().reshape(-1)
        if sel.numel() == 0:
            continue
        nblk = math.ceil(sel.numel() / block_size)
        padded = torch.full((nblk * block_size,), numel, dtype=torch.long)
        padded[: sel.numel()] = sel
        ids.append(padded)
        experts += [e] * nblk
    total = sum(t.numel() for t in ids)
    cap = numel + num_experts * (block_size - 1)
    sorted_ids = torch.full((cap,), numel, dtype=torch.int32)
    sorted_ids[:total] = torch.cat(ids).to(torch.int32)
    expert_ids = torch.zeros(math.ceil(cap / block_size), dtype=torch.int32)
    expert_ids[: len(experts)] = torch.tensor(experts, dtype=torch.int32)
    return sorted_ids, expert_ids, torch.tensor([total], dtype=torch.int32)


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
    sorted_ids, expert_ids, post = moe_align_block_size(topk_ids, ggml_moe_get_block_size(qtype), e)
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
