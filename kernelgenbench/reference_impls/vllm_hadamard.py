"""Reference for vLLM's hadacore_transform at v0.13.0
(csrc/quantization/hadamard/hadacore/hadamard_transform_cuda.cu), with an input generator.

y = x @ H_n / sqrt(n) along the last dim, where H_n is the Sylvester Hadamard matrix
(H_1 = [1], H_2k = [[H_k, H_k], [H_k, -H_k]]) and n = x.size(-1), a power of two up to 2^15; fp16/bf16
only. The kernel works on x viewed as [-1, n], padded with zero rows to a multiple of 256 elements, and
always writes its result into that (possibly padded) buffer; with inplace=True it returns it. So x itself
is overwritten and returned exactly when x is contiguous and x.numel() % 256 == 0; otherwise a new tensor
is returned and x is left alone. With inplace=False 0.13.0 still writes x (when it is such a view) and
returns an uninitialized tensor; the reference implements the intended out-of-place transform and the
generator only draws inplace=True.
"""

from __future__ import annotations

import math

import torch

from kernelgenbench.reference_impls.shared import _dtype


def _fwht(x: torch.Tensor) -> torch.Tensor:
    """Unnormalized fast Walsh-Hadamard transform (Sylvester order) over the last dim, in float32."""
    n = x.shape[-1]
    y = x.float().reshape(-1, n)
    h = 1
    while h < n:
        y = y.reshape(-1, n // (2 * h), 2, h)
        y = torch.stack([y[:, :, 0] + y[:, :, 1], y[:, :, 0] - y[:, :, 1]], dim=2)
        h *= 2
    return y.reshape(x.shape)


def hadacore_transform(x, inplace):
    """Normalized Sylvester Hadamard transform of x's last dim (in place when the kernel would be)."""
    n = x.shape[-1]
    if n & (n - 1) or n > (1 << 15) or n < 1:
        raise ValueError(f"Only power of two Hadamard sizes up to 2^15 are supported, got {n}")
    if x.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError("Only fp16 and bf16 supported currently")
    y = (_fwht(x) / math.sqrt(n)).to(x.dtype)
    if inplace and x.is_contiguous() and x.numel() % 256 == 0:
        x.copy_(y)
        return x
    return y


def make_hadacore_transform_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Random rows [batch_size, hidden_dim] (vLLM's test transforms identity matrices) and inplace=True."""
    gen = torch.Generator().manual_seed(seed)
    rows, n = int(params["batch_size"]), int(params["hidden_dim"])
    x = torch.randn(rows, n, generator=gen).to(_dtype(params.get("dtype", "bfloat16")))
    return dict(x=x.to(device), inplace=bool(params.get("inplace", True)))
