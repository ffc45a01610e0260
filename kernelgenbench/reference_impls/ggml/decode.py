"""GGUF blocks -> their fields and the dense values they encode, per block type, as dequantize.cuh computes."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.ggml.codebooks import IQ1_DELTA, KVALUES_IQ4NL, _ksigns, iq_grid
from kernelgenbench.reference_impls.ggml.layout import GGML_TYPES, _half, _k_scale_min, _nibbles, _u32_bits

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
