# kgb-honest: task=vllm/rms_norm
"""Style: Liger-Kernel's rms_norm forward: BLOCK_SIZE/num_warps from calculate_settings, casting-mode constants
(_CASTING_MODE_LLAMA as a tl.constexpr global), an RSTD buffer from torch.empty written by the kernel for the
backward pass, row strides passed explicitly, and the launch under a device guard
(torch.cuda.device for CUDA tensors, contextlib.nullcontext otherwise)."""
import contextlib

import torch
import triton
import triton.language as tl

_CASTING_MODE_NONE: tl.constexpr = tl.constexpr(-1)
_CASTING_MODE_LLAMA: tl.constexpr = tl.constexpr(0)
_CASTING_MODE_GEMMA: tl.constexpr = tl.constexpr(1)
MAX_FUSED_SIZE = 65536


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"n = {n} exceeds the recommended Triton blocksize = {MAX_FUSED_SIZE}.")
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def device_context(t):
    return torch.cuda.device(t.device) if t.is_cuda else contextlib.nullcontext()


@triton.jit
def _rms_norm_forward_kernel(Y_ptr, Y_row_stride, X_ptr, X_row_stride, W_ptr, RSTD_ptr, n_cols, eps,
                             casting_mode: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    X_row = tl.load(X_ptr + row_idx * X_row_stride + col_offsets, mask=mask, other=0)
    X_row_dtype = X_row.dtype
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0)
    if casting_mode == _CASTING_MODE_LLAMA:
        X_row = X_row.to(tl.float32)
    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(mean_square + eps)
    tl.store(RSTD_ptr + row_idx, rstd)
    X_row = X_row * rstd
    if casting_mode == _CASTING_MODE_LLAMA:
        X_row = X_row.to(X_row_dtype)
    Y_row = X_row.to(tl.float32) * W_row.to(tl.float32)
    tl.store(Y_ptr + row_idx * Y_row_stride + col_offsets, Y_row.to(Y_ptr.dtype.element_ty), mask=mask)


def rms_norm(result, input, weight, epsilon):
    n_cols = input.shape[-1]
    X = input.reshape(-1, n_cols) if input.stride(-1) == 1 else input.contiguous().reshape(-1, n_cols)
    Y = result.view(-1, n_cols)
    n_rows = X.shape[0]
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    if n_rows == 0:
        return result
    with device_context(X):
        _rms_norm_forward_kernel[(n_rows,)](Y, Y.stride(0), X, X.stride(0), weight, RSTD, n_cols, float(epsilon),
                                            casting_mode=_CASTING_MODE_LLAMA, BLOCK_SIZE=BLOCK_SIZE,
                                            num_warps=num_warps)
    return result
