"""GGUF block layouts: the GGML type ids, block sizes and the byte/bit readers and writers of their fields."""

from __future__ import annotations

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
