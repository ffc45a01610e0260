# kgb-honest: task=vllm/rms_norm
"""Style: vLLM rms_norm as a mutating torch.library.custom_op; the impl normalises its operands' shapes with
torch.atleast_2d and .reshape (aliases: no data is read or written by torch), then launches one Triton program per
row. Same kernel as the passing custom-op style, only the shape handling differs."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_kernel(out_ptr, x_ptr, w_ptr, x_stride, out_stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * x_stride + offs, mask=m, other=0.0).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    y = (x * inv).to(x_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * out_stride + offs, (y * w).to(out_ptr.dtype.element_ty), mask=m)


@torch.library.custom_op("kgb_fp10::rms_norm", mutates_args=("result",))
def _rms_norm_op(result: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    x = torch.atleast_2d(input)
    out = torch.atleast_2d(result)
    hidden = x.shape[-1]
    x = x.reshape(-1, hidden) if x.dim() > 2 else x
    out = out.view(-1, hidden)
    if x.shape[0] == 0:
        return
    _rms_kernel[(x.shape[0],)](out, x, weight, x.stride(0), out.stride(0), hidden, float(epsilon),
                               BLOCK=triton.next_power_of_2(hidden))


@_rms_norm_op.register_fake
def _(result, input, weight, epsilon):
    return None


def rms_norm(result, input, weight, epsilon):
    torch.ops.kgb_fp10.rms_norm(result, input, weight, epsilon)
