"""Group quantization of dense weights to integer codes, and the dequantization the kernels compute."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.marlin.formats import fp8_exponent_bias

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
