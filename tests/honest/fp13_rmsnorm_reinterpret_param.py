# kgb-honest: task=vllm/rms_norm
"""Style: the weight is a module's nn.Parameter and is handed through triton.reinterpret (as code that views fp8 or
int8 weights under a Triton dtype does), here reinterpreting it as its own Triton dtype."""
import torch
import triton
import triton.language as tl

_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}


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


def rms_norm(result, input, weight, epsilon):
    hidden = input.shape[-1]
    x = input.reshape(-1, hidden) if input.stride(-1) == 1 else input.contiguous().reshape(-1, hidden)
    out = result.view(-1, hidden)
    w = torch.nn.Parameter(weight, requires_grad=False)
    w_view = triton.reinterpret(w, _TL[weight.dtype])
    if x.shape[0]:
        _rms_norm_kernel[(x.shape[0],)](out, x, w_view, hidden, x.stride(0), out.stride(0), float(epsilon),
                                        BLOCK=triton.next_power_of_2(hidden))
