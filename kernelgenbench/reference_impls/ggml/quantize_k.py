"""Quantizers of the legacy (Q4_0..Q8_0) and K (Q2_K..Q6_K) block types: dense -> (blocks, dense equivalent)."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.ggml.layout import _bits_to_bytes, _half_bytes, _k_scale_min_pack

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
