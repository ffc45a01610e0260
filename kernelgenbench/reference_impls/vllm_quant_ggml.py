"""References for vLLM's GGUF/GGML ops at v0.13.0, with per-block-type quantizers/packers.

Ops: ggml_dequantize, ggml_mul_mat_vec_a8, ggml_mul_mat_a8, ggml_moe_a8, ggml_moe_a8_vec
(csrc/quantization/gguf/gguf_kernel.cu). A GGUF weight is a uint8 tensor [rows, bytes per row] of
consecutive blocks (struct layouts in csrc/quantization/gguf/ggml-common.h, element order as in
dequantize.cuh and gguf-py's quants.py); `type` is the GGMLQuantizationType id.

Block types: Q4_0 (2), Q4_1 (3), Q5_0 (6), Q5_1 (7), Q8_0 (8), Q2_K (10), Q3_K (11), Q4_K (12), Q5_K (13),
Q6_K (14) -- the ten that ggml_mul_mat_a8 and ggml_moe_a8 accept -- and the i-quants IQ2_XXS (16), IQ2_XS
(17), IQ3_XXS (18), IQ1_S (19), IQ4_NL (20), IQ3_S (21), IQ2_S (22), IQ4_XS (23), IQ1_M (29), which
ggml_dequantize, ggml_mul_mat_vec_a8 and ggml_moe_a8_vec also accept (codebooks from ggml-common.h).

The *_a8 ops first quantize X to Q8_1 (blocks of 32: d = amax / 127, q = roundf(x / d), d stored as half),
then take integer dot products with the weight's codes and apply the float scales. The references compute
dequant(W) @ dequant(Q8_1(X)) in float32 and round once to X.dtype. The kernels' offset/min terms of
Q4_0/Q4_1/Q5_x use the block sum of the unquantized X (held in half), which the reference does not model;
that and summation order are within the tolerance, not bit-exact.
"""

from __future__ import annotations

import functools
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
    16: ("IQ2_XXS", 256, 66),
    17: ("IQ2_XS", 256, 74),
    18: ("IQ3_XXS", 256, 98),
    19: ("IQ1_S", 256, 50),
    20: ("IQ4_NL", 32, 18),
    21: ("IQ3_S", 256, 110),
    22: ("IQ2_S", 256, 82),
    23: ("IQ4_XS", 256, 136),
    29: ("IQ1_M", 256, 56),
}
# the types the MMQ kernels (ggml_mul_mat_a8, ggml_moe_a8) accept; every type above goes through the
# dequantizer and the MMVQ kernels (ggml_dequantize, ggml_mul_mat_vec_a8, ggml_moe_a8_vec)
MMQ_TYPES = (2, 3, 6, 7, 8, 10, 11, 12, 13, 14)
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
    if kind == "direct":  # i-quants: computed in float by the kernels, rounded only on the final store
        return f["y"]
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


# ---- i-quants (IQ2_XXS 16, IQ2_XS 17, IQ3_XXS 18, IQ1_S 19, IQ4_NL 20, IQ3_S 21, IQ2_S 22, IQ4_XS 23,
# IQ1_M 29): grid codebooks from ggml-common.h, dequantized in float as dequantize.cuh does ----
# The grids are stored compactly: every iq2 grid byte is one of 0x08, 0x19, 0x2b (2 bits each), every iq3
# byte one of 4, 12, ..., 62 (3 bits), every iq1s_grid_gpu nibble one of 0, 1, 2 (2 bits, the 8 values in
# the kernel's order: low nibbles of bytes 0..3, then high nibbles).

KVALUES_IQ4NL = (-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113)
IQ1_DELTA = 0.125

@functools.cache
def iq_grid(name: str) -> torch.Tensor:
    """A decoded codebook: [entries, values per entry] float32 ('iq2xxs', 'iq2xs', 'iq2s', 'iq3xxs', 'iq3s', 'iq1s')."""
    text, digits, bits, per, levels = {
        "iq2xxs": (_IQ2XXS_HEX, 4, 2, 8, (8, 25, 43)),
        "iq2xs": (_IQ2XS_HEX, 4, 2, 8, (8, 25, 43)),
        "iq2s": (_IQ2S_HEX, 4, 2, 8, (8, 25, 43)),
        "iq3xxs": (_IQ3XXS_HEX, 3, 3, 4, (4, 12, 20, 28, 36, 44, 52, 62)),
        "iq3s": (_IQ3S_HEX, 3, 3, 4, (4, 12, 20, 28, 36, 44, 52, 62)),
        "iq1s": (_IQ1S_HEX, 4, 2, 8, (0, 1, 2)),
    }[name]
    codes = torch.tensor([int(text[i : i + digits], 16) for i in range(0, len(text), digits)], dtype=torch.int64)
    idx = (codes.unsqueeze(1) >> (torch.arange(per) * bits)) & ((1 << bits) - 1)
    return torch.tensor(levels, dtype=torch.float32)[idx]


def _ksigns(idx7: torch.Tensor) -> torch.Tensor:
    """ksigns_iq2xs: the 7 stored sign bits plus an 8th that makes the count of minus signs even."""
    par = torch.zeros_like(idx7)
    for b in range(7):
        par ^= (idx7 >> b) & 1
    return idx7 | (par << 7)


def _sign_bits(byte: torch.Tensor, n: int = 8) -> torch.Tensor:
    """[..., ] sign bytes -> [..., n] factors +1 / -1 (bit j set = minus)."""
    return 1.0 - 2.0 * ((byte.unsqueeze(-1) >> torch.arange(n)) & 1).float()


def _u16(b: torch.Tensor) -> torch.Tensor:
    b = b.long()
    return b[..., 0::2] | (b[..., 1::2] << 8)


def _u32(b: torch.Tensor) -> torch.Tensor:
    b = b.long()
    return b[..., 0::4] | (b[..., 1::4] << 8) | (b[..., 2::4] << 16) | (b[..., 3::4] << 24)


def _iq_scaled(d: torch.Tensor, grid: torch.Tensor, signs: torch.Tensor) -> torch.Tensor:
    # y = d * grid * sign, float32, in that order (the kernel's loop body)
    return (d.unsqueeze(-1) * grid) * signs


def _f_iq2_xxs(b):
    nb = b.shape[0]
    d0 = _half(b[:, 0:2]).view(nb, 1)
    qs = b[:, 2:66].reshape(nb, 8, 8)
    aux = _u32(qs[:, :, 4:8]).reshape(nb, 8)
    d = d0 * (0.5 + (aux >> 28).float()) * 0.25
    sidx = (aux.unsqueeze(-1) >> (7 * torch.arange(4))) & 127
    grid = iq_grid("iq2xxs")[qs[:, :, 0:4].long()]
    y = _iq_scaled(d.unsqueeze(-1).expand(nb, 8, 4), grid, _sign_bits(_ksigns(sidx)))
    return "direct", {"y": y.reshape(nb, 256)}


def _iq2_scale(scales: torch.Tensor) -> torch.Tensor:
    """[nb, 8] scale bytes -> [nb, 8, 4] 4-bit scales (low nibble for il 0, 1; high for 2, 3)."""
    return (scales.long().unsqueeze(-1) >> (4 * (torch.arange(4) // 2))) & 15


def _f_iq2_xs(b):
    nb = b.shape[0]
    d0 = _half(b[:, 0:2]).view(nb, 1, 1)
    q2 = _u16(b[:, 2:66]).reshape(nb, 8, 4)
    d = d0 * (0.5 + _iq2_scale(b[:, 66:74]).float()) * 0.25
    grid = iq_grid("iq2xs")[q2 & 511]
    return "direct", {"y": _iq_scaled(d, grid, _sign_bits(_ksigns(q2 >> 9))).reshape(nb, 256)}


def _f_iq2_s(b):
    nb = b.shape[0]
    d0 = _half(b[:, 0:2]).view(nb, 1, 1)
    lo = b[:, 2:34].long().reshape(nb, 8, 4)
    signs = b[:, 34:66].long().reshape(nb, 8, 4)
    qh = b[:, 66:74].long().reshape(nb, 8, 1)
    idx = lo | ((qh << (8 - 2 * torch.arange(4))) & 0x300)
    d = d0 * (0.5 + _iq2_scale(b[:, 74:82]).float()) * 0.25
    return "direct", {"y": _iq_scaled(d, iq_grid("iq2s")[idx], _sign_bits(signs)).reshape(nb, 256)}


def _f_iq3_xxs(b):
    nb = b.shape[0]
    d0 = _half(b[:, 0:2]).view(nb, 1)
    q3 = b[:, 2:66].long().reshape(nb, 8, 4, 2)
    aux = _u32(b[:, 66:98]).reshape(nb, 8)
    d = d0 * (0.5 + (aux >> 28).float()) * 0.5
    sidx = (aux.unsqueeze(-1) >> (7 * torch.arange(4))) & 127
    grid = iq_grid("iq3xxs")[q3].reshape(nb, 8, 4, 8)  # grid1 values, then grid2 values
    y = _iq_scaled(d.unsqueeze(-1).expand(nb, 8, 4), grid, _sign_bits(_ksigns(sidx)))
    return "direct", {"y": y.reshape(nb, 256)}


def _f_iq3_s(b):
    nb = b.shape[0]
    d0 = _half(b[:, 0:2]).view(nb, 1)
    qs = b[:, 2:66].long().reshape(nb, 8, 4, 2)
    qh = b[:, 66:74].long().reshape(nb, 8, 1)
    signs = b[:, 74:106].long().reshape(nb, 8, 4)
    sc = b[:, 106:110].long()
    il = torch.arange(4)
    i1 = qs[..., 0] | ((qh << (8 - 2 * il)) & 256)
    i2 = qs[..., 1] | ((qh << (7 - 2 * il)) & 256)
    grid = torch.cat([iq_grid("iq3s")[i1], iq_grid("iq3s")[i2]], dim=-1)
    ib = torch.arange(8)
    s = (sc[:, ib // 2] >> (4 * (ib % 2))) & 15
    d = d0 * (0.5 + s.float()) * 0.5
    y = _iq_scaled(d.unsqueeze(-1).expand(nb, 8, 4), grid, _sign_bits(signs))
    return "direct", {"y": y.reshape(nb, 256)}


def _f_iq1_s(b):
    nb = b.shape[0]
    d0 = _half(b[:, 0:2]).view(nb, 1)
    qs = b[:, 2:34].long().reshape(nb, 8, 4)
    qh = _u16(b[:, 34:50]).reshape(nb, 8)
    delta = torch.where(qh & 0x8000 != 0, -1 - IQ1_DELTA, -1 + IQ1_DELTA)
    d = d0 * (2 * ((qh >> 12) & 7) + 1).float()
    idx = qs | (((qh.unsqueeze(-1) >> (3 * torch.arange(4))) & 7) << 8)
    q = iq_grid("iq1s")[idx]
    y = d.view(nb, 8, 1, 1) * (q + delta.view(nb, 8, 1, 1))
    return "direct", {"y": y.reshape(nb, 256)}


def _iq1m_scale(sc: torch.Tensor) -> torch.Tensor:
    s = (sc[:, 0] >> 12) | ((sc[:, 1] >> 8) & 0x00F0) | ((sc[:, 2] >> 4) & 0x0F00) | (sc[:, 3] & 0xF000)
    return torch.where(s >= 2**15, s - 2**16, s).to(torch.int16).view(torch.float16).float()


def _f_iq1_m(b):
    nb = b.shape[0]
    qs = b[:, 0:32].long().reshape(nb, 8, 4)
    qh = b[:, 32:48].long().reshape(nb, 8, 2)
    sc = _u16(b[:, 48:56])  # [nb, 4]
    d0 = _iq1m_scale(sc).view(nb, 1, 1)
    ib = torch.arange(8).view(8, 1)
    il = torch.arange(4).view(1, 4)
    ib16 = 2 * ib + il // 2  # [8, 4]
    s = (sc[:, ib16 // 4] >> (3 * (ib16 % 4))) & 7  # [nb, 8, 4]
    d = d0 * (2 * s + 1).float()
    qhb = qh[:, :, torch.arange(4) // 2]  # [nb, 8, 4]: the qh byte of each 16 values
    delta = torch.where(qhb & (0x08 << (4 * (il % 2))) != 0, -1 - IQ1_DELTA, -1 + IQ1_DELTA)
    idx = qs | (((qhb >> (4 * (il % 2))) & 7) << 8)
    y = d.unsqueeze(-1) * (iq_grid("iq1s")[idx] + delta.unsqueeze(-1))
    return "direct", {"y": y.reshape(nb, 256)}


def _kv(q: torch.Tensor) -> torch.Tensor:
    return torch.tensor(KVALUES_IQ4NL, dtype=torch.float32)[q]


def _f_iq4_nl(b):
    d = _half(b[:, 0:2])
    return "direct", {"y": d * _kv(_nibbles(b[:, 2:18]))}


def _f_iq4_xs(b):
    nb = b.shape[0]
    d0 = _half(b[:, 0:2]).view(nb, 1)
    sh = _u16(b[:, 2:4]).reshape(nb, 1)
    sl = b[:, 4:8].long()
    ib = torch.arange(8)
    ls = ((sl[:, ib // 2] >> (4 * (ib % 2))) & 15) | (((sh >> (2 * ib)) & 3) << 4)
    d = d0 * (ls - 32).float()
    q = b[:, 8:136].reshape(nb * 8, 16)
    vals = _kv(_nibbles(q)).reshape(nb, 8, 32)
    return "direct", {"y": (d.unsqueeze(-1) * vals).reshape(nb, 256)}


# ---- i-quant quantizers: nearest codebook entry per group of values, scales as the blocks store them ----


def _nearest_full(grid: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    dist = (t * t).sum(1, keepdim=True) - 2 * t @ grid.t() + (grid * grid).sum(1)
    return dist.argmin(1)


def _nearest(grid: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """A codebook row near each target row: the rounded pattern if the codebook has it, else the best of its
    one-level neighbours, else (rarely) a full search. Any valid row would do for a generator; near ones
    keep the quantization error realistic."""
    per = grid.shape[1]
    levels = torch.unique(grid)
    nlev = levels.numel()
    codes = (torch.searchsorted(levels, grid.contiguous()) * (nlev ** torch.arange(per))).sum(1)
    lut = torch.full((nlev**per,), -1, dtype=torch.int64)
    lut[codes] = torch.arange(grid.shape[0])
    t = target.reshape(-1, per)
    r = (t.unsqueeze(-1) - levels).abs().argmin(-1)  # nearest level per position
    base = (r * (nlev ** torch.arange(per))).sum(1)
    best = lut[base]
    miss = (best < 0).nonzero().reshape(-1)
    if miss.numel():
        cand = []
        for j in range(per):
            for step in (-1, 1):
                rj = r[miss, j] + step
                ok = (rj >= 0) & (rj < nlev)
                code = base[miss] + step * nlev**j
                idx = torch.where(ok, lut[code.clamp(0, nlev**per - 1)], torch.full_like(code, -1))
                cand.append(idx)
        cand = torch.stack(cand, 1)  # [misses, 2 * per]
        safe = cand.clamp(min=0)
        err = (grid[safe] - t[miss].unsqueeze(1)).pow(2).sum(-1)
        err = torch.where(cand >= 0, err, torch.full_like(err, float("inf")))
        pick = err.argmin(1)
        got = cand.gather(1, pick.view(-1, 1)).view(-1)
        best[miss] = got
        rest = miss[got < 0]
        if rest.numel():
            best[rest] = _nearest_full(grid, t[rest])
    return best.reshape(target.shape[:-1])


def _even_signs(x: torch.Tensor) -> torch.Tensor:
    """Sign bits of x [..., 8] with the smallest |x| flipped where needed so the count of minus signs is even."""
    neg = (x < 0).long()
    odd = neg.sum(-1) % 2 == 1
    flip = torch.nn.functional.one_hot(x.abs().argmin(-1), 8).bool() & odd.unsqueeze(-1)
    return torch.where(flip, 1 - neg, neg)


def _bits_value(bits: torch.Tensor) -> torch.Tensor:
    return (bits << torch.arange(bits.shape[-1])).sum(-1)


def _le_bytes(v: torch.Tensor, n: int) -> torch.Tensor:
    """[...] ints -> [..., n] little-endian bytes."""
    return ((v.unsqueeze(-1) >> (8 * torch.arange(n))) & 255).to(torch.uint8)


def _sub_scale(amax: torch.Tensor, top: float, mult: float, levels: int):
    """Per-sub-block scale codes s (0..levels-1) and super scale d0 (half) with d = d0 * (0.5 + s) * mult ~ amax / top."""
    want = amax / top
    d0 = (want.amax(1, keepdim=True) / ((levels - 0.5) * mult)).half().float()
    s = torch.clamp(torch.round(_safe_div(want, d0 * mult) - 0.5), 0, levels - 1).long()
    return d0, s


def _qz_iq_grid(x, grid_name, per, top, mult):
    """IQ2_XXS core: ([nb, 8, 4] indices, sign bits [nb, 8, 4, 8], d0, s, dense)."""
    nb = x.shape[0]
    xs = x.reshape(nb, 8, 4, 8)
    d0, s = _sub_scale(xs.abs().reshape(nb, 8, 32).amax(-1), top, mult, 16)
    d = d0 * (0.5 + s.float()) * mult  # [nb, 8]
    signs = _even_signs(xs)
    target = _safe_div(xs.abs(), d.view(nb, 8, 1, 1).expand_as(xs))
    grid = iq_grid(grid_name)
    idx = _nearest(grid, target.reshape(nb, 8, 4 * 8 // per, per)).reshape(nb, 8, -1)
    vals = grid[idx].reshape(nb, 8, 4, 8)
    dense = _iq_scaled(d.view(nb, 8, 1).expand(nb, 8, 4), vals, 1.0 - 2.0 * signs.float())
    return idx, signs, d0, s, dense.reshape(nb, 256)


def _qz_iq2_xxs(x):
    idx, signs, d0, s, dense = _qz_iq_grid(x, "iq2xxs", 8, 43, 0.25)
    sidx = _bits_value(signs[..., :7])  # [nb, 8, 4]
    aux = (sidx << (7 * torch.arange(4))).sum(-1) | (s << 28)
    qs = torch.cat([idx.to(torch.uint8), _le_bytes(aux, 4)], -1).reshape(x.shape[0], 64)
    return torch.cat([_half_bytes(d0), qs], 1), dense


def _per_il_scales(x, top, mult):
    """IQ2_XS / IQ2_S: one 4-bit scale per 16 values (two per 32-block) -> (d0, s [nb, 8, 2])."""
    nb = x.shape[0]
    amax = x.abs().reshape(nb, 16, 16).amax(-1)
    d0, s = _sub_scale(amax, top, mult, 16)
    return d0, s.reshape(nb, 8, 2)


def _qz_iq2_16(x, grid_name, nidx):
    nb = x.shape[0]
    xs = x.reshape(nb, 8, 4, 8)
    d0, s = _per_il_scales(x, 43, 0.25)
    s4 = s.repeat_interleave(2, dim=2)  # [nb, 8, 4]: il 0, 1 use the low nibble, 2, 3 the high
    d = d0.view(nb, 1, 1) * (0.5 + s4.float()) * 0.25
    grid = iq_grid(grid_name)[:nidx]
    idx = _nearest(grid, _safe_div(xs.abs(), d.unsqueeze(-1).expand_as(xs)))
    return xs, d0, s, d, idx, grid


def _qz_iq2_xs(x):
    nb = x.shape[0]
    xs, d0, s, d, idx, grid = _qz_iq2_16(x, "iq2xs", 512)
    signs = _even_signs(xs)
    q2 = idx | (_bits_value(signs[..., :7]) << 9)
    dense = _iq_scaled(d, grid[idx], 1.0 - 2.0 * signs.float()).reshape(nb, 256)
    scales = (s[..., 0] | (s[..., 1] << 4)).to(torch.uint8)
    return torch.cat([_half_bytes(d0), _le_bytes(q2, 2).reshape(nb, 64), scales], 1), dense


def _qz_iq2_s(x):
    nb = x.shape[0]
    xs, d0, s, d, idx, grid = _qz_iq2_16(x, "iq2s", 1024)
    signs = (xs < 0).long()  # IQ2_S stores all 8 sign bits
    dense = _iq_scaled(d, grid[idx], 1.0 - 2.0 * signs.float()).reshape(nb, 256)
    lo = (idx & 255).to(torch.uint8).reshape(nb, 32)
    qh = ((idx >> 8) << (2 * torch.arange(4))).sum(-1).to(torch.uint8)  # [nb, 8]
    sb = _bits_value(signs).to(torch.uint8).reshape(nb, 32)
    scales = (s[..., 0] | (s[..., 1] << 4)).to(torch.uint8)
    return torch.cat([_half_bytes(d0), lo, sb, qh, scales], 1), dense


def _qz_iq3(x, grid_name, nidx):
    nb = x.shape[0]
    xs = x.reshape(nb, 8, 4, 8)
    d0, s = _sub_scale(xs.abs().reshape(nb, 8, 32).amax(-1), 62, 0.5, 16)
    d = d0 * (0.5 + s.float()) * 0.5
    grid = iq_grid(grid_name)[:nidx]
    target = _safe_div(xs.abs(), d.view(nb, 8, 1, 1).expand_as(xs)).reshape(nb, 8, 4, 2, 4)
    idx = _nearest(grid, target)  # [nb, 8, 4, 2]
    return xs, d0, s, d, idx, grid


def _qz_iq3_xxs(x):
    nb = x.shape[0]
    xs, d0, s, d, idx, grid = _qz_iq3(x, "iq3xxs", 256)
    signs = _even_signs(xs)
    vals = grid[idx].reshape(nb, 8, 4, 8)
    dense = _iq_scaled(d.view(nb, 8, 1).expand(nb, 8, 4), vals, 1.0 - 2.0 * signs.float()).reshape(nb, 256)
    aux = (_bits_value(signs[..., :7]) << (7 * torch.arange(4))).sum(-1) | (s << 28)
    return torch.cat([_half_bytes(d0), idx.to(torch.uint8).reshape(nb, 64), _le_bytes(aux, 4).reshape(nb, 32)], 1), dense


def _qz_iq3_s(x):
    nb = x.shape[0]
    xs, d0, s, d, idx, grid = _qz_iq3(x, "iq3s", 512)
    signs = (xs < 0).long()
    vals = grid[idx].reshape(nb, 8, 4, 8)
    dense = _iq_scaled(d.view(nb, 8, 1).expand(nb, 8, 4), vals, 1.0 - 2.0 * signs.float()).reshape(nb, 256)
    hi = idx >> 8  # [nb, 8, 4, 2]: bit 2il for grid1, 2il + 1 for grid2
    qh = (hi.reshape(nb, 8, 8) << torch.arange(8)).sum(-1).to(torch.uint8)
    sb = _bits_value(signs).to(torch.uint8).reshape(nb, 32)
    scales = (s[:, 0::2] | (s[:, 1::2] << 4)).to(torch.uint8)
    return torch.cat([_half_bytes(d0), (idx & 255).to(torch.uint8).reshape(nb, 64), qh, sb, scales], 1), dense


def _qz_iq1_s(x):
    nb = x.shape[0]
    xs = x.reshape(nb, 8, 4, 8)
    amax = xs.abs().reshape(nb, 8, 32).amax(-1)
    d0 = (amax.amax(1, keepdim=True) / 15 / 1.125).half().float()
    s = torch.clamp(torch.round((_safe_div(amax / 1.125, d0) - 1) / 2), 0, 7).long()
    d = d0 * (2 * s + 1).float()
    # one delta sign per 32-block: the one with the smaller total error
    errs = []
    for delta in (-1 + IQ1_DELTA, -1 - IQ1_DELTA):
        t = _safe_div(xs, d.view(nb, 8, 1, 1).expand_as(xs)) - delta
        idx = _nearest(iq_grid("iq1s"), t)
        err = ((iq_grid("iq1s")[idx] + delta) * d.view(nb, 8, 1, 1) - xs).pow(2).sum((-1, -2))
        errs.append((idx, err))
    neg = errs[1][1] < errs[0][1]  # [nb, 8]
    idx = torch.where(neg.unsqueeze(-1), errs[1][0], errs[0][0])
    delta = torch.where(neg, -1 - IQ1_DELTA, -1 + IQ1_DELTA)
    dense = (d.view(nb, 8, 1, 1) * (iq_grid("iq1s")[idx] + delta.view(nb, 8, 1, 1))).reshape(nb, 256)
    qh = ((idx >> 8) << (3 * torch.arange(4))).sum(-1) | (s << 12) | (neg.long() << 15)
    blocks = torch.cat([_half_bytes(d0), (idx & 255).to(torch.uint8).reshape(nb, 32), _le_bytes(qh, 2).reshape(nb, 16)], 1)
    return blocks, dense


def _qz_iq1_m(x):
    nb = x.shape[0]
    xs = x.reshape(nb, 16, 2, 8)  # 16-value halves: one 3-bit scale each, one delta per 8
    amax = xs.abs().reshape(nb, 16, 16).amax(-1)
    d0 = (amax.amax(1, keepdim=True) / 15 / 1.125).half().float()
    s = torch.clamp(torch.round((_safe_div(amax / 1.125, d0) - 1) / 2), 0, 7).long()  # [nb, 16]
    d = d0 * (2 * s + 1).float()
    g = iq_grid("iq1s")
    fits = []
    for delta in (-1 + IQ1_DELTA, -1 - IQ1_DELTA):
        t = _safe_div(xs, d.view(nb, 16, 1, 1).expand_as(xs)) - delta
        idx = _nearest(g, t)
        err = ((g[idx] + delta) * d.view(nb, 16, 1, 1) - xs).pow(2).sum(-1)
        fits.append((idx, err))
    neg = fits[1][1] < fits[0][1]  # [nb, 16, 2]
    idx = torch.where(neg, fits[1][0], fits[0][0])
    delta = torch.where(neg, -1 - IQ1_DELTA, -1 + IQ1_DELTA)
    dense = (d.view(nb, 16, 1, 1) * (g[idx] + delta.unsqueeze(-1))).reshape(nb, 256)
    # qh byte per 16 values: low nibble = grid bits 8..10 of group 0 | delta flag 0x08, high nibble group 1
    hi = idx >> 8
    qh = (hi[..., 0] | (neg[..., 0].long() << 3)) | ((hi[..., 1] | (neg[..., 1].long() << 3)) << 4)
    d16 = _half_bytes(d0).contiguous().view(torch.int16).long().reshape(nb) & 0xFFFF
    sc = (s.reshape(nb, 4, 4) << (3 * torch.arange(4))).sum(-1)  # 4 x 12 bits
    sc = sc | (((d16.unsqueeze(-1) >> (4 * torch.arange(4))) & 15) << 12)
    blocks = torch.cat([(idx & 255).to(torch.uint8).reshape(nb, 32), qh.to(torch.uint8).reshape(nb, 16),
                        _le_bytes(sc, 2).reshape(nb, 8)], 1)
    return blocks, dense


def _kv_nearest(t: torch.Tensor) -> torch.Tensor:
    kv = torch.tensor(KVALUES_IQ4NL, dtype=torch.float32)
    return (t.unsqueeze(-1) - kv).abs().argmin(-1)


def _qz_iq4_nl(x):
    amax_idx = x.abs().argmax(1, keepdim=True)
    d = (x.gather(1, amax_idx) / torch.where(x.gather(1, amax_idx) < 0, -127.0, 113.0)).half().float()
    q = _kv_nearest(_safe_div(x, d))
    return torch.cat([_half_bytes(d), _pack_nibbles(q)], 1), d * _kv(q)


def _qz_iq4_xs(x):
    nb = x.shape[0]
    xs = x.reshape(nb, 8, 32)
    want = xs.abs().amax(-1) / 127
    d0 = (want.amax(1, keepdim=True) / 31).half().float()
    ls = torch.clamp(torch.round(_safe_div(want, d0)), 0, 31).long() + 32  # scale d0 * (ls - 32) >= 0
    d = d0 * (ls - 32).float()
    q = _kv_nearest(_safe_div(xs, d.unsqueeze(-1).expand_as(xs)))
    dense = (d.unsqueeze(-1) * _kv(q)).reshape(nb, 256)
    sh = (((ls >> 4) & 3) << (2 * torch.arange(8))).sum(-1)
    sl = ((ls[:, 0::2] & 15) | ((ls[:, 1::2] & 15) << 4)).to(torch.uint8)
    qs = _pack_nibbles(q.reshape(nb * 8, 32)).reshape(nb, 128)
    return torch.cat([_half_bytes(d0), _le_bytes(sh, 2), sl, qs], 1), dense


_FIELDS = {2: _f_q4_0, 3: _f_q4_1, 6: _f_q5_0, 7: _f_q5_1, 8: _f_q8_0,
           10: _f_q2_k, 11: _f_q3_k, 12: _f_q4_k, 13: _f_q5_k, 14: _f_q6_k,
           16: _f_iq2_xxs, 17: _f_iq2_xs, 18: _f_iq3_xxs, 19: _f_iq1_s, 20: _f_iq4_nl, 21: _f_iq3_s,
           22: _f_iq2_s, 23: _f_iq4_xs, 29: _f_iq1_m}


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
          10: _qz_q2_k, 11: _qz_q3_k, 12: _qz_q4_k, 13: _qz_q5_k, 14: _qz_q6_k,
          16: _qz_iq2_xxs, 17: _qz_iq2_xs, 18: _qz_iq3_xxs, 19: _qz_iq1_s, 20: _qz_iq4_nl, 21: _qz_iq3_s,
          22: _qz_iq2_s, 23: _qz_iq4_xs, 29: _qz_iq1_m}


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


# ---- codebooks, transcribed from csrc/quantization/gguf/ggml-common.h (see iq_grid) ----

_IQ2XXS_HEX = (
    "0000000200050008000a00110014002000220028002a00410044005000580061006400800082008a00a20101010401100115"
    "014001840198020002020222028204010404041004210424044004420448046004810484049004a405000502050805200546"
    "056905800591060906100640068406a40800080508080814082808410844085008520888090409400a020a14100110041010"
    "1021104010601084109010951100110811201150115a11801224124514001408142014251449148015181562160016161801"
    "18041810184018811900190519a01a5120002002200a20442061208020822129214822002202240124042410244024562500"
    "2541256426902808282028942a44400140044010401840214024404040484056406040814084409041004120416141804185"
    "42014210424842564268440044084420448044994512452446004801480448104840484549004958496149824a454a905000"
    "5008501150195020508050885104514251a4529154905492550a56015654580058115819586459405a086004601060406068"
    "610061556218626064006405651065126584684280008002800a804180828104811881408211840184048410841584408460"
    "850085468594860986408660880289048a11900490109024904090a1911691809245940094229444955198819920a002a050"
    "a085a109a200a418a850a904"
)
_IQ2XS_HEX = (
    "0000000200050008000a00110014001600190020002200250028004100440046004900500052005500580061006400800082"
    "0085008800910094009900a001010104010601090110011201150118011a0121012401400142014501480151015401600168"
    "018101840190020002020205020802110214022002410244025002550280028a040104040406040904100412041504180421"
    "0424044004420445044804510454045604600481048404900500050205050508051105140520054105440550056105800601"
    "0604061006260640064206840800080208050808080a08110814082008250841084408500858088008a008aa090109040910"
    "0940098109890a000a200a280a960aa010011004100610091010101210151018102110241040104210451048105110541060"
    "106a108110841090110011021105110811111114112011411144115011801194119612011204120612101240126014001402"
    "1405140814111414142014411444144914501464148015011504151015401600161416491801180418101812184018541886"
    "1900190519661a511aa92000200220052008200a201120142020204120442050208020a02101210421102140214821652200"
    "2222228022a82401240424102429244025002541255225992601261a26a628002808280a28202855288828a2296829902a08"
    "2a202a822a882a8a40014004400640094010401240154018402140244040404240454048404a405140544060406540814084"
    "409041004102410541084111411441204141414441504180418541a242014204421042124229424044004402440544084411"
    "4414441944204441444444504480449445014504451045244540459a4600460a464446504801480448104840484548544862"
    "490049114944495049694a045000500250055008501150145020502850415044505050805101510451105115514051425200"
    "524452aa540154045410542154405460548154a155005508558055885621566856a158005814584158505899591a59405942"
    "5a85600160046010604060546062608660a961006224624a62926400641665106540654565a46801686a69256a066a546a62"
    "8000800280058008801180148020802a8041804480508080808280a880aa8101810481068110814081518159820082208280"
    "828282a082a8840184048410841284158440846084898500854485a58618866a880088088825885a8880888288a889068a22"
    "8a808a888a968aa8900190049010904090569084910091229164925692899400940594449450945895299590959296419851"
    "98a699499a159a60a000a002a008a00aa020a02aa0a0a151a159a1a6a200a202a208a22aa280a2a0a440a495a665a698a80a"
    "a820a822a828a8a0a8a8a904a984a986aa28aa2aaa91aaaa"
)
_IQ2S_HEX = (
    "0000000200050008000a00110014001600190020002200250028004100440046004900500052005500580061006400660069"
    "00800082008500880091009400a000a500aa0101010401060109011001120115011801210124014001420145014801510154"
    "015601590160016501680181018401900192019501a101a40200020202050208021102140220022a02410244024602490250"
    "025502800285028a029402a20401040404060409041004120415041804210424042604290440044204450448044a04510454"
    "04560459046004620465048104840486048904900495049804a104a40500050205050508050a051105140516051905200525"
    "0528054105440546054905500552055505580561056405800582058505880591059405a00601060406060609061006150640"
    "064506480651065406600681068406900800080208050808081108140816081908200825082a084108440846084908500852"
    "085508580861086408800885089408aa0901090409100912091509180921094009450948095109540960098109900a000a11"
    "0a140a220a280a2a0a500a991001100410061009101010121015101810211024102610401042104510481051105410561059"
    "106010621065106810811084108610901095109810a110a41100110211051108110a11111114111611191120112211251128"
    "1141114411461149115011521155115811611164118011821185118811911194120112041209121012151221122412401245"
    "1251125412811284129014001402140514081411141414161419142014251428144114441446144914501452145514581461"
    "146414801482148514881491149414a015011504150615091510151215151518152115241540154215451548155115541560"
    "158115841590160016051608161116141620164116441650168016aa18011804180618091810181518181821184018421845"
    "1848185118541860188118841900190219051908191119141920194119441950196919a21a041a101a401a56200020022005"
    "2008201120142016201920202025202a2041204420502052205520642080208a209420aa2101210421102112211521212140"
    "214221452151215421602181218421902200220a22222228222a224422502288228a22a82401240424062409241024152418"
    "2421242424402442244524482451245424602481248424902500250525082511251425202541254425502566258026012604"
    "2610264026592800280528112814284128442850288a28aa29012904291029952a0a2a222a642a882a8a4001400440064009"
    "4010401240154018401a4021402440264040404240454048404a405140544056405940604062406540814084409040954098"
    "40a140a441004102410541084111411441164119412041224125414141444146414941504152415541584161416441804182"
    "418541884191419441a04201420442104212421542184224424042454248425142544260428142844400440244054408440a"
    "44114414441644194420442244254428444144444446444944504452445544584461446444804482448544884491449444a0"
    "45014504450645094510451245154518452145244540454245454548455145544560456a4581458445904600460246054608"
    "461146144620464146444650468046a548014804480948104812481548184821482448404842484548484851485448604884"
    "48904900490249054908491149144920494149444950498049964a014a044a104a4050005002500550085011501450165019"
    "5020502250255028504150445046504950505052505550585061506450805082508550885091509451015104510651095110"
    "5112511551185121512451405142514551485151515451605181518451905200520552085211521452205241524452505269"
    "5280540154045406540954105412541554185421542454405442544554485451545454605481548454905500550255055508"
    "5511551455205541554455505580560156045610562656405800580258055808581158145820584158445850585a58805901"
    "5904591059405a005a195a855aa8600160046006601060126015601860216024604060456048605160546060608460906100"
    "61026105610861116114612061416144615061806199620462106240625662a1640064056408641164146420644164446450"
    "64806501650465106540654a6568659266006694680168046810686568986900692a6a426aa1800080028005800880118014"
    "8019802080258041804480508052805580588061808080858091809481018104810981108112811581188121812481408142"
    "814581488151815481818184819081a982008205820a82118214824182448250840184048406840984108412841584188421"
    "844084428445844884518454846084818484849085008502850585088511851485208541854485508580858a860186048610"
    "86298640880088058811881488418844885088a289018904894089658a228a588a5a8a828aa2900190049009901090129015"
    "9018902490409042904590489051905490609081908490909100910591119114914191449150915a920192049210924092a6"
    "9400940294059408941194149420944194449450948094969501950495109540959895a19600964696649801980498109826"
    "984098a99900994999529a90a000a005a00aa014a022a02aa041a044a050a0a2a0aaa140a165a202a20aa222a228a22aa282"
    "a288a28aa2a8a401a404a410a440a489a4a4a500a519a651a80aa828a8a2a954a986aa08aa0aaa20aa22aa28aa88aaaa"
)
_IQ3XXS_HEX = (
    "00000200400900b00f01001201902203b03d04104304804a05105505805a06106c07808008208408909009209909b09f0a90"
    "af0bd0c10c70c80ca0d50f810b11f12412f13b13d14114715a16a19d1b41c81cc1ce1e31f120120320820a21121321821a21"
    "c22722824024224925025228128328828a2912982ba2c02c22d02d92e62f63013053283503543663793853d23e0400402409"
    "40b41041241641942244144344544844a45145847347747848048248948f49049249f4a04ad4c14c84cc4f84fc51d52b5435"
    "5756157c5c15c35ce5e560160860a61161362863563a6406426506596646666816836886956aa6ba6c96db71872773a74074"
    "675276d78c79e7b37db7f080480f81d81f82b82f87c89089f8a08b08b68c78e59049299349559639789c59c89ca9d8a0aa21"
    "a38a40a46a56a6da8ca9aabaac2aebb08b13b17b3ab42b59ba8bd4be2c14c24c26c34c51c71c8fcb4cd8cded24d45d6ad9bd"
    "c3dd1e03e05e07e08e1ae2ae56e60e8aea5eaaec0ecdedbef0f11f21f40f42f54f98"
)
_IQ3S_HEX = (
    "00000100200500700800900a00c00e01001101501b02002202502702902b03003203903c03f04004104204404804904d0500"
    "5305705905d06407107507a08008108508708808b08e09109509809c0a20a50a70a90ab0b80bb0c30c90cd0d00d20d90db0d"
    "e0e40e80ea0f70f90fd10010b10f11111411a12012312913814214415015215615b16116516717617b18618918b1991aa1b9"
    "1c01c21c41d01d21d61db1e81ec20020120220420820920b20d20f21021221921c21e22c22e23123a24024124324624824c2"
    "5125825b26126826a27827e28028a28d28f29029429a2a02a32ad2b02ba2c12c42c72c82cb2d12d72d82dc2e12f22f830330"
    "530a30c31931b32232632832c34134834b35135835a3693903943973a43a63c13c33c83ca3d13dd3e13f23f8400401403405"
    "40740840a40c40e41141341741841a42142342542842a43743843b43d44044244844b44f45245545945c4624694814844874"
    "9149349849f4a14ab4af4b94bc4c04c24c54c94d24d44d94db4e24e84f650150751051351a51d52153a53d54454955255f56"
    "056b5785805825875915ad5b15c55c95d65d85e35e860260960b60d60f61261961b61d62262462762963363964164364564c"
    "65165366067067a67e68068a69069a69c6a86c16c86cc6d16d36d76d86e16e36e76ed6fb70370970e71271972a7307347417"
    "4874a75575a76476e77b78e7a17c17c37d07d27dd80080480a81081481781a82182883884284784984b85285885d86386986"
    "d88188388888d89189b8a08af8b28b88c48c98cb8d08d28d98dd90090291491f92093994594795197298b99c9b09c89cd9d8"
    "9e39e9a02a08a0ca12a20a24a27a2aa36a3ca41a43a45a4aa51a5aa7aa80a89a93a98a9eaabac2ac7ac8ad7ae4ae9af5afbb"
    "01b04b10b1ab26b4ab56b69b6bba2bc2bc4bd2c09c0bc0dc19c1bc30c40c50c57c74c8ac9cca2cadcb2cb8cc0ccccd1ce0d1"
    "5d23d32d40d43d5cd70d85da0dc9dcbe00e04e07e10e12e1ee20e2ce32e42e49e54e63e65e81e84e88e8ee91e98ea9ec2eda"
    "eddeebf01f05f0bf10f28f52f62f82f99fc0"
)
_IQ1S_HEX = (
    "0000000200050008000a00110015002000220028002a00450051005400560065008000820088008a009500a000a200a800aa"
    "010401050111011401160119011a012501410146014901520155015a0161016401660168018501910194019601a502000202"
    "0208020a0215022002220228022a02450251025902640269028002820288028a02910295029902a002a202a802aa04110414"
    "04160425044104490455045a046404650491049904a5050105040505050605150518051a052905400545054a055005510554"
    "0555055605590560056205650568056a0581059105950598059a05a105a405a505a605a90614061906410644065006520655"
    "065806600661066606690685069106940699080008020808080a0815082008220828082a0845085108560865088008820888"
    "088a089508a008a208a808aa0905091109140919092409250941095009510955096109640969099109940996099909a50a00"
    "0a020a080a0a0a150a200a220a280a2a0a450a510a590a610a650a800a820a850a880a8a0a950aa00aa20aa80aaa10101011"
    "101410191024102510411044105010551058106110641065106910911094109610a110a51101110411061109111011121115"
    "11181121112411291145114a11501151115211541155115611591160116511841192119511a111a412111214121612251240"
    "12461249125212551258125a12641266128512911294129612a5140114061409141414151418141914211426144114451446"
    "1448144a145114541455145614591462146514681484148914901494149514981499149a14a114a414a514a915021505150a"
    "151115141515151615191520152215251528152a1541154415451546155115521554155515561559155a1561156415651566"
    "156915801582158415851588158a159015911594159515961599159a15a015a215a51601160416051606161516161618161a"
    "1621162616401642164416451648164a1651165516561658165916611664166516681669166a1686168a1692169516a416a9"
    "1811181618251841184418461849185018551858185a1860186118641866186918851891189418a5191019121915191a1921"
    "1925194219441945194819511954195519561959195a19601965196a1989199119921995199819a119a619a91a091a161a24"
    "1a261a441a461a491a501a521a551a581a611a661a691a851a911a961a9a200020022008200a20152020202220252028202a"
    "20452051205920612065208020822088208a209520a020a220a520a820aa2105211121142119212521422144214921552158"
    "215a2161216421652166218521902196219921a522012208220a22112215222022222228222a224522512256225922652281"
    "2288228a2291229522a022a222a822aa240524142416241924252444244524462449245224552458245a2466248524912494"
    "249924a124a52509251525212529254025452548255125542555255925622565256825892590259425952598259a25a125a4"
    "25a625a926052610261226192625264126492655266026612669268426862690269a280028022808280a2815282028222828"
    "282a2845285128542865288028822888288a28a028a228a828aa290929112914291929252946294929522955296129642966"
    "2969298529902996299929a429a52a002a022a082a0a2a202a222a282a2a2a452a512a562a592a652a802a822a882a8a2a95"
    "2aa02aa22aa82aaa40054011401640254049405240554058405a4061406440664094409940a140a641004101410441064109"
    "4112411541164118411a41214126412941454148414a41514154415541564159415a41654168416a41814184418641904192"
    "419541a041a141a242054211421442164225424142524255425a426442694289429442a5440144154419442944454448444a"
    "44514454445544564461446244654468446a44814486448944904492449544a044a144a9450145024505450a451145144515"
    "4516451945204525452a45414544454545464549455045514554455545564558455945614564456545664569458245844585"
    "458845914594459545964599459a45a545a845aa460146054609461446154618461a46214624462946404642464546484650"
    "4651465246554656465946624665466846814685468a4694469546a146a446a6480548114815481a48254842484948504855"
    "485848614864486648694885489148944896489948a5490149054906490a491049144915491849214924492649404945494a"
    "4951495249544955495649594960496249654966496a49864989499249954996499849a149a449a649a94a164a444a464a49"
    "4a554a584a5a4a644a694a944aa55001500450055006500950125015501a5021502450295040504550485051505450555056"
    "505950655068508650895095509850a050a150a650a9510551085109510a5111511451155116511851195120512551265128"
    "512a5141514451455146514951505151515251545155515651585159515a5161516451655166516951825185519151945195"
    "5196519951a051a551aa5201520652125215521a5221522452425245524a5251525452555256525952625265528552905292"
    "52955299529a52a454045405541154145415541654185419542154255428542a54415444544554465449544a545054515454"
    "5455545654585459545a54615462546454655466546954805488548a5491549454955496549954a154a454a554aa55015502"
    "55045505550655095510551155125514551555165519551a5521552455255526552955405541554255445545554655485549"
    "55505551555255545555555655585559555a5560556155645565556655685569556a5581558455855589558a559055915594"
    "559555965598559955a155a455a555a655a95600560156025604560656085609561156145615561856195620562156225624"
    "562556265628562956415645564656485649564a56505651565256545655565656585659565a566156645665566956825685"
    "568656885689568a56915695569a56a256a556a656a856a958045805580658095810581558185821582a58455848584a5851"
    "58545855585658585859586058625864586558825889589058925895589858a158a9590159025905590a5911591459155916"
    "591959255941594459455946594959505951595259545955595659585959595a596159645965596659695981598559895991"
    "5994599559965998599959a55a045a085a155a1a5a205a255a265a295a455a485a495a515a555a565a585a595a625a655a68"
    "5a6a5a815a8a5a925a955a965a985a9a5aa16005601460166019602560446050605560566058605a60616064606660696081"
    "609660a5610161046106610961126115612161226126612961456149615161556156615961656166616a6184618a61926195"
    "61a161a661a9621162166219624062416246625562566258626062856291629662a56411641264156416641a642164266429"
    "6440644264456448644a64516454645564566459645a646064626465648464856489649064926494649564966498649a64a1"
    "64a464a965056508650a65116515651665196544654565466549655065516554655565566559656165646565656665696586"
    "6589658a6591659565966599659a65a265a565a665a86602660966156620662666286629664066456648664a665166546655"
    "66566658665a666066656668668066826685668a669466966698669966a066a466a666aa681668196825684168526855685a"
    "6861686968856891689868a66901690469106915692169246926692969406941694569466948695169546955695669596960"
    "6965696a69826984698a699569a169a469a569a96a116a166a186a416a446a496a506a556a586a5a6a646a656a696a866a94"
    "6a986a9a6aa6800080028008800a802080228028802a8045805080518054805680598065808080828088808a809580a080a2"
    "80a880aa81058111811481168119812581418144814981508152815581568158815981648166816981858189819481968199"
    "81a5820082028208820a8215822082228228822a8251825482598265828082828288828a829582a082a282a882aa84148419"
    "8441844484518455845a846184648469849484998501850985128515851a8526852985408541854585488551855485558556"
    "8559855a856585668568856a8581858485868589859085928595859885a68611861686198625864186448649864a86508655"
    "8659865a86618666866a86858691869a86a4880088028808880a8815882088228828882a8841884588518854885988658869"
    "888088828888888a889588a088a288a888aa8905890689118914891689258941894489468949895089528955895a89618964"
    "89858996899989a58a008a028a088a0a8a158a208a228a288a2a8a458a518a548a568a808a828a888a8a8a958aa08aa28aa8"
    "8aaa90059011901690189019902590419046904990559058905a9069906a9085909190949096909990a59101910491069109"
    "911091159118911a912191249126912991409145915091519154915591569159916291659184918691929195919891a191a4"
    "91a691a99205921192149219922592449246924992509252925592589266926992859294929692a994019404940694109415"
    "941894269440944a945194549455945694589459946094619462946594849486949294949495949894a194a9950095059508"
    "950a951095119514951595169519952195259529952a9541954495459546954995509551955295549555955695589559955a"
    "95619564956595669569958195859588959195929594959595969599959a95a095a295a595a895aa96019604961096159619"
    "9620962696299645964896499651965296559656965996659668968296849689968a96929694969596a496a696a998059816"
    "98199825984198469850985298559856985a98649865988598919896989998a59904990699099910991299159918991a9920"
    "9921992499269940994299459948994a99519954995599569959996299659966996a99819984999099929995999a99a199a6"
    "9a059a159a259a449a469a499a509a559a589a619a859a919a949a959a96a000a002a008a00aa015a020a022a028a02aa045"
    "a051a054a056a059a080a082a088a08aa095a0a0a0a2a0a8a0aaa105a109a111a114a116a119a11aa146a149a151a155a158"
    "a15aa161a164a185a190a192a196a199a202a208a20aa210a219a222a228a22aa245a251a256a259a265a280a282a288a28a"
    "a295a2a0a2a2a2a8a2aaa419a425a441a444a450a454a455a458a45aa461a465a466a468a469a485a506a509a510a512a515"
    "a518a526a529a542a545a551a554a555a556a559a565a56aa581a584a585a586a589a592a595a598a605a611a616a61aa621"
    "a625a644a646a64aa652a655a656a658a660a662a686a690a695a696a699a6a1a6a4a6a6a800a802a808a80aa820a822a828"
    "a82aa851a854a856a859a880a882a888a88aa895a8a0a8a2a8a8a8aaa905a914a919a921a925a941a950a955a95aa961a966"
    "a969a990a996aa00aa02aa08aa0aaa20aa22aa28aa2aaa51aa54aa56aa80aa82aa88aa8aaa95aaa0aaa2aaa8aaaa"
)
