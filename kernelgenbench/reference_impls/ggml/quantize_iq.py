"""Quantizers of the i-quant block types: dense float32 [nb, 256] -> (blocks uint8, dense equivalent)."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.ggml.codebooks import IQ1_DELTA, KVALUES_IQ4NL, iq_grid
from kernelgenbench.reference_impls.ggml.decode import _iq_scaled, _kv
from kernelgenbench.reference_impls.ggml.layout import _half_bytes
from kernelgenbench.reference_impls.ggml.quantize_k import _pack_nibbles, _safe_div

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
