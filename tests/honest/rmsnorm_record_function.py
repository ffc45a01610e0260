# kgb-honest: task=vllm/rms_norm
"""vLLM rms_norm annotated for the profiler (torch.profiler.record_function) and run under torch.no_grad()."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(out_ptr, x_ptr, w_ptr, hidden, x_row_stride, out_row_stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < hidden
    x = tl.load(x_ptr + row * x_row_stride + offs, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / hidden + eps)
    y = (x * inv).to(out_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * out_row_stride + offs, (y * w).to(out_ptr.dtype.element_ty), mask=mask)


@torch.no_grad()
def rms_norm(result, input, weight, epsilon):
    with torch.profiler.record_function("triton::rms_norm"):
        hidden = input.shape[-1]
        x = input.reshape(-1, hidden) if input.stride(-1) == 1 else input.contiguous().reshape(-1, hidden)
        out = result.view(-1, hidden)
        rows = x.shape[0]
        if rows:
            _rms_norm_kernel[(rows,)](out, x, weight, hidden, x.stride(0), out.stride(0), float(epsilon),
                                      BLOCK=triton.next_power_of_2(hidden))
