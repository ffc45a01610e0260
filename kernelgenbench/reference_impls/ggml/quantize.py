"""Dense weights -> GGUF bytes for every supported type, and activations as the a8 kernels quantize them (Q8_1)."""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.ggml.layout import GGML_TYPES
from kernelgenbench.reference_impls.ggml.quantize_iq import (
    _qz_iq1_m,
    _qz_iq1_s,
    _qz_iq2_s,
    _qz_iq2_xs,
    _qz_iq2_xxs,
    _qz_iq3_s,
    _qz_iq3_xxs,
    _qz_iq4_nl,
    _qz_iq4_xs,
)
from kernelgenbench.reference_impls.ggml.quantize_k import (
    _qz_q2_k,
    _qz_q3_k,
    _qz_q4_0,
    _qz_q4_1,
    _qz_q4_k,
    _qz_q5_0,
    _qz_q5_1,
    _qz_q5_k,
    _qz_q6_k,
    _qz_q8_0,
    _safe_div,
)

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
