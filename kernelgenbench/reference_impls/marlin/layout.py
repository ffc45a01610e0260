"""Marlin layouts: the fragment and scale permutations, GPTQ/AWQ/Marlin packers and their inverses."""

from __future__ import annotations

import torch


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


def marlin_zero_points_a8(zp: torch.Tensor, bits: int) -> torch.Tensor:
    """marlin_zero_points(..., is_a_8bit=True): grouped permutation, no column interleave, packed along N."""
    return pack_along(_chunk_perm(zp, scale_perms()[0], inverse=False), bits, 1)


def pack_free_rows(w: torch.Tensor, bits: int) -> torch.Tensor:
    """GPTQ int32 [K/pf, N] -> [K, N] codes."""
    return unpack_along(w, bits, 0)
