# kgb-honest: task=aten/_softmax
"""Style: Liger-Kernel's softmax: online softmax (running max and rescaled running sum in one pass, then a
normalising pass) for wide rows, single-block kernel for rows that fit (BLOCK_SIZE and num_warps from a
`calculate_settings`-like helper), wrapped in a torch.autograd.Function whose forward launches the kernel."""
import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 1024


def calculate_settings(n):
    block = triton.next_power_of_2(n)
    num_warps = 4
    if block >= 2048:
        num_warps = 8
    return block, num_warps


@triton.jit
def _softmax_single_block(y_ptr, ys, x_ptr, xs, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * xs + offs, mask=mask, other=-float("inf"), cache_modifier=".ca").to(tl.float32)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    d = tl.sum(e, axis=0)
    tl.store(y_ptr + row * ys + offs, (e / d).to(y_ptr.dtype.element_ty), mask=mask, cache_modifier=".cs")


@triton.jit
def _softmax_multi_block(y_ptr, ys, x_ptr, xs, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = float("-inf")
    d = 0.0
    for start in tl.range(0, n_cols, BLOCK):
        idx = start + offs
        x = tl.load(x_ptr + row * xs + idx, mask=idx < n_cols, other=-float("inf")).to(tl.float32)
        blk_max = tl.max(x, axis=0)
        new_m = tl.maximum(m, blk_max)
        d = d * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m
    for start in tl.range(0, n_cols, BLOCK):
        idx = start + offs
        x = tl.load(x_ptr + row * xs + idx, mask=idx < n_cols, other=-float("inf")).to(tl.float32)
        tl.store(y_ptr + row * ys + idx, (tl.exp(x - m) / d).to(y_ptr.dtype.element_ty), mask=idx < n_cols)


def _softmax_forward(x2d, out_dtype):
    n_rows, n_cols = x2d.shape
    y = torch.empty((n_rows, n_cols), dtype=out_dtype, device=x2d.device)
    if n_rows == 0 or n_cols == 0:
        return y
    block, num_warps = calculate_settings(n_cols)
    if block <= MAX_FUSED_SIZE:
        _softmax_single_block[(n_rows,)](y, y.stride(0), x2d, x2d.stride(0), n_cols, BLOCK=block, num_warps=num_warps)
    else:
        _softmax_multi_block[(n_rows,)](y, y.stride(0), x2d, x2d.stride(0), n_cols, BLOCK=MAX_FUSED_SIZE,
                                        num_warps=num_warps)
    return y


class SoftmaxFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x2d, out_dtype):
        return _softmax_forward(x2d, out_dtype)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    if self.dim() == 0:
        return SoftmaxFunction.apply(self.reshape(1, 1), out_dtype).reshape(())
    x = self.movedim(dim, -1).contiguous()
    shape = x.shape
    y = SoftmaxFunction.apply(x.reshape(-1, shape[-1]) if x.numel() else x.reshape(-1, max(shape[-1], 1))[:0],
                              out_dtype)
    return y.reshape(shape).movedim(-1, dim)
