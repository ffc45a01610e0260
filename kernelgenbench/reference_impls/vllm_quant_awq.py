"""Reference for vLLM's awq_gemm at v0.13.0, with an AWQ quantizer/packer.

Format, from csrc/quantization/awq/gemm_kernels.cu + dequantize.cuh and the torch dequantizer in
tests/kernels/quantization/test_awq_triton.py:
- qweight: int32 [K, N / 8]; qzeros: int32 [K / G, N / 8]; scales: float16 [K / G, N].
- Each int32 holds 8 consecutive columns 8j .. 8j+7 as 4-bit nibbles in AWQ's interleaved order: nibble i
  (bits 4i .. 4i+3) holds column 8j + AWQ_ORDER[i], AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7].
- Dequantized weight = half(half(q - z) * s) (sub.f16x2 then fma.rn.f16x2 with 0).
- The kernel splits K over split_k_iters partial products written in fp16 and sums them in fp16; the
  reference accumulates in float32 (the split changes only rounding).
- The CUDA kernel requires N % 64 == 0, G % 32 == 0 and N % G == 0.
"""

from __future__ import annotations

import math

import torch

AWQ_ORDER = (0, 2, 4, 6, 1, 3, 5, 7)


def _to_int32(words: torch.Tensor) -> torch.Tensor:
    words = words & 0xFFFFFFFF
    return torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)


def pack_awq(values: torch.Tensor) -> torch.Tensor:
    """Pack 4-bit ints [R, C] into int32 [R, C / 8] in AWQ's interleaved nibble order."""
    r, c = values.shape
    v = values.to(torch.int64).view(r, c // 8, 8)[:, :, list(AWQ_ORDER)]
    shifts = torch.arange(0, 32, 4, dtype=torch.int64)
    return _to_int32((v << shifts).sum(-1))


def unpack_awq(words: torch.Tensor) -> torch.Tensor:
    """Inverse of pack_awq: int64 [R, C] with C = 8 * words.shape[1]."""
    w = words.to(torch.int64) & 0xFFFFFFFF
    nib = (w.unsqueeze(-1) >> torch.arange(0, 32, 4, dtype=torch.int64)) & 0xF  # [R, C/8, 8] by nibble
    out = torch.empty_like(nib)
    out[:, :, list(AWQ_ORDER)] = nib
    return out.reshape(w.shape[0], -1)


def quantize_awq(w: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Asymmetric 4-bit per-group (along K) quantization of dense w [K, N]: (q, zero, scale fp16)."""
    k, n = w.shape
    wg = w.float().view(k // group_size, group_size, n)
    lo = wg.amin(1).clamp(max=0)
    hi = wg.amax(1).clamp(min=0)
    scale = ((hi - lo) / 15).clamp(min=1e-4).half()
    zero = torch.round(-lo / scale.float()).clamp(0, 15).to(torch.int64)
    q = torch.clamp(torch.round(wg / scale.float().unsqueeze(1)) + zero.unsqueeze(1), 0, 15)
    return q.to(torch.int64).view(k, n), zero, scale


def dequantize_awq(qweight: torch.Tensor, qzeros: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """Dense fp16 weight [K, N] from AWQ-packed tensors, rounded as the kernel does."""
    q = unpack_awq(qweight.cpu())
    z = unpack_awq(qzeros.cpu())
    g = q.shape[0] // scales.shape[0]
    s = scales.cpu().repeat_interleave(g, dim=0)
    return (q - z.repeat_interleave(g, dim=0)).half() * s


def awq_gemm(
    _in_feats: torch.Tensor,
    _kernel: torch.Tensor,
    _scaling_factors: torch.Tensor,
    _zeros: torch.Tensor,
    split_k_iters: int,
) -> torch.Tensor:
    """vLLM awq_gemm: fp16 [M, K] @ dequant(AWQ weight) [K, N] -> fp16 [M, N]."""
    w = dequantize_awq(_kernel, _zeros, _scaling_factors).to(_in_feats.device)
    return (_in_feats.float() @ w.float()).to(_in_feats.dtype)


def make_awq_gemm_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for awq_gemm: fp16 activations and an AWQ-packed weight quantized from a dense one."""
    gen = torch.Generator().manual_seed(seed)
    m, k, n = int(params["m"]), int(params["k"]), int(params["n"])
    gs = int(params.get("group_size", 128))
    gs = k if gs in (-1, 0) else gs
    # 1/sqrt(K) keeps outputs O(1) for every K, so one tolerance fits all workloads.
    w = torch.randn(k, n, generator=gen) / math.sqrt(k)
    q, zero, scale = quantize_awq(w, gs)
    a = torch.randn(m, k, generator=gen).half()
    return {
        "_in_feats": a.to(device),
        "_kernel": pack_awq(q).to(device),
        "_scaling_factors": scale.to(device),
        "_zeros": pack_awq(zero).to(device),
        "split_k_iters": int(params.get("split_k_iters", 8)),
    }
