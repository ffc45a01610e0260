"""Reference for vLLM's allspark_w8a16_gemm at v0.13.0, with its quantizer and N32K16 repacker.

Format, from csrc/quantization/gptq_allspark/ (allspark_repack.cu, allspark_qgemm_w8a16.cu) and
tests/kernels/quantization/test_allspark_gemm.py:
- Weights are uint8 with bias 128 (vLLM's uint8b128), per output channel (group_size == -1 only):
  w = ((q - 128) - zero) * scale, computed in the activation dtype (the subtraction is exact, the product
  rounds once); zero (only when has_zp) and scale are [1, N32] in that dtype, N32 = N rounded up to 32.
- b_qweight is the [K, N] uint8 weight rearranged by rearrange_kn_weight_as_n32k16_order into N32K16
  order: a [N32, K] (= [N32 / 4, 4 K]) byte array. The index map below is transcribed from the repack
  kernel's thread layout; scales/zeros are permuted inside every 32 columns (l -> (l % 8) * 4 + l // 8).
  Columns N .. N32 are zero padding.
- C = A @ W with fp32 accumulation, [M, n] in A's dtype. n32k16_reorder, sm_count, sm_version and
  CUBLAS_M_THRESHOLD only pick kernels (the last switches to dequantize + cuBLAS above M rows); the v0.13.0
  kernel reads the N32K16 layout whatever n32k16_reorder says.
"""

from __future__ import annotations

import math

import torch

_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def _n32(n: int) -> int:
    return (n + 31) // 32 * 32


def n32k16_index(k: int, n: int, device=None) -> tuple[torch.Tensor, torch.Tensor]:
    """(src, dst): flat [K, N] source indices and flat [N32/4, 4K] destination indices of every weight byte."""
    kw = dict(dtype=torch.int64, device=device)
    bx = torch.arange(math.ceil(k / 64), **kw).view(-1, 1, 1, 1, 1, 1)
    by = torch.arange(math.ceil(n / 128), **kw).view(1, -1, 1, 1, 1, 1)
    w = torch.arange(4, **kw).view(1, 1, 4, 1, 1, 1)
    lane = torch.arange(32, **kw).view(1, 1, 1, 32, 1, 1)
    i = torch.arange(4, **kw).view(1, 1, 1, 1, 4, 1)
    j = torch.arange(16, **kw).view(1, 1, 1, 1, 1, 16)
    src_row = bx * 64 + w * 16 + ((lane % 8) // 2) * 2 + (i // 2) * 8 + (i % 2)
    src_col = by * 128 + (lane // 8) * 32 + (lane % 2) * 16 + j
    dst_row = by * 32 + (lane // 8) * 8 + (j % 8)
    dst_col = bx * 256 + w * 64 + (lane % 8) * 8 + i + (j // 8) * 4
    shape = torch.broadcast_shapes(src_row.shape, src_col.shape, dst_row.shape, dst_col.shape)
    src_row, src_col, dst_row, dst_col = (t.expand(shape).reshape(-1) for t in (src_row, src_col, dst_row, dst_col))
    valid = (src_row < k) & (src_col < n) & (dst_row < _n32(n) // 4) & (dst_col < 4 * k)
    return (src_row * n + src_col)[valid], (dst_row * 4 * k + dst_col)[valid]


def _param_perm(n: int, device=None) -> torch.Tensor:
    """dst position of each of the N32 per-channel parameters (scales, zeros)."""
    c = torch.arange(_n32(n), device=device)
    lane = c % 32
    return c - lane + (lane % 8) * 4 + lane // 8


def repack_n32k16(qweight: torch.Tensor, scale: torch.Tensor, zero: torch.Tensor | None):
    """vLLM allspark_repack_weight: [K, N] uint8, [1, N] scales/zeros -> [N32, K], [1, N32], [1, N32]."""
    k, n = qweight.shape
    n32 = _n32(n)
    src, dst = n32k16_index(k, n, qweight.device)
    out = torch.zeros(n32 * k, dtype=torch.uint8, device=qweight.device)
    out[dst] = qweight.reshape(-1)[src]

    def params(p):
        if p is None:
            return None
        padded = torch.zeros(n32, dtype=p.dtype, device=p.device)
        padded[:n] = p.reshape(-1)
        res = torch.empty_like(padded)
        res[_param_perm(n, p.device)] = padded
        return res.view(1, n32)

    return out.view(n32, k), params(scale), params(zero)


def unpack_n32k16(b_qweight: torch.Tensor, b_param: torch.Tensor | None, k: int, n: int):
    """Inverse of repack_n32k16: ([K, N] uint8, [N] parameters or None)."""
    src, dst = n32k16_index(k, n, b_qweight.device)
    q = torch.zeros(k * n, dtype=torch.uint8, device=b_qweight.device)
    q[src] = b_qweight.reshape(-1)[dst]
    return q.view(k, n), None if b_param is None else _unpermute(b_param, n)


def allspark_w8a16_gemm(
    a: torch.Tensor,
    b_qweight: torch.Tensor,
    b_scales: torch.Tensor,
    b_qzeros: torch.Tensor | None,
    n: int,
    group_size: int,
    sm_count: int,
    sm_version: int,
    CUBLAS_M_THRESHOLD: int,
    has_zp: bool,
    n32k16_reorder: bool,
) -> torch.Tensor:
    """vLLM allspark_w8a16_gemm: A [M, K] @ dequant(uint8b128 N32K16 weight) -> [M, n] in A's dtype."""
    k = a.shape[1]
    q, scale = unpack_n32k16(b_qweight, b_scales, k, n)
    w = q.to(torch.int32) - 128
    w = w.to(a.dtype)
    if has_zp and b_qzeros is not None:
        w = w - _unpermute(b_qzeros, n).to(a.dtype)
    w = (w.float() * scale.float()).to(a.dtype)
    return (a.float() @ w.float()).to(a.dtype)


def _unpermute(p: torch.Tensor, n: int) -> torch.Tensor:
    return p.reshape(-1)[_param_perm(n, p.device)][:n]


def quantize_uint8b128(w: torch.Tensor, has_zp: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """vLLM quantize_weights(uint8b128, group_size=-1): (q uint8 [K, N], scale [1, N], zero [1, N] or None)."""
    lo = w.amin(0, keepdim=True)
    hi = w.amax(0, keepdim=True)
    if has_zp:
        s = (hi - lo).clamp(min=1e-5) / 127
        zp = torch.round((lo / s).abs()).clamp(-128, 127)
        q = (torch.round(w / s) + zp).clamp(-128, 127)
    else:
        s = torch.maximum((hi / 127).abs(), (lo / -128).abs())
        zp = None
        q = torch.round(w / s).clamp(-128, 127)
    return (q + 128).to(torch.uint8), s, zp


def make_allspark_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for allspark_w8a16_gemm as the vLLM test builds them: n = 16 nf, k = 16 kf, per-channel scales."""
    gen = torch.Generator().manual_seed(seed)
    if "mnk_factors" in params:
        m, nf, kf = (int(v) for v in params["mnk_factors"])
        n, k = nf * 16, kf * 16
    else:
        m, n, k = int(params["m"]), int(params["n"]), int(params["k"])
    dtype = _DTYPES[params.get("dtype", "float16")]
    has_zp = bool(params.get("has_zp", False))
    w = torch.randn(k, n, generator=gen) / math.sqrt(k)
    q, s, zp = quantize_uint8b128(w, has_zp)
    s = s.to(dtype)
    zp = None if zp is None else zp.to(dtype)
    qr, sr, zr = repack_n32k16(q, s, zp)
    a = torch.randn(m, k, generator=gen).to(dtype)
    return {
        "a": a.to(device),
        "b_qweight": qr.to(device),
        "b_scales": sr.to(device),
        "b_qzeros": None if zr is None else zr.to(device),
        "n": n,
        "group_size": -1,
        "sm_count": int(params.get("sm_count", 108)),
        "sm_version": int(params.get("sm_version", 80)),
        "CUBLAS_M_THRESHOLD": 1024,
        "has_zp": has_zp,
        "n32k16_reorder": True,
    }
