"""vLLM rms_norm: result = (x * rsqrt(mean(x^2) + eps)) rounded to the input dtype, times weight.

Loads in the input dtype and computes in fp32 (which also keeps Triton's interpreter exact for bf16).
Rows may be strided (input[..., :h] of a wider tensor); narrow rows are processed several per program.
"""
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(out_ptr, x_ptr, w_ptr, rows, hidden, x_row_stride, out_row_stride, eps,
                     ROWS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    offs = tl.arange(0, BLOCK)[None, :]
    mask = (r < rows) & (offs < hidden)
    x = tl.load(x_ptr + r * x_row_stride + offs, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=1) / hidden + eps)
    y = (x * inv[:, None]).to(out_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=offs < hidden, other=0.0).to(tl.float32)
    tl.store(out_ptr + r * out_row_stride + offs, (y * w).to(out_ptr.dtype.element_ty), mask=mask)


def rms_norm(result, input, weight, epsilon):
    hidden = input.shape[-1]
    x = input.reshape(-1, hidden) if input.stride(-1) == 1 else input.contiguous().reshape(-1, hidden)
    out = result.view(-1, hidden)
    rows = x.shape[0]
    block = triton.next_power_of_2(hidden)
    per_program = max(1, min(64, 2048 // block))
    if rows:
        _rms_norm_kernel[(triton.cdiv(rows, per_program),)](out, x, weight, rows, hidden, x.stride(0), out.stride(0),
                                                            float(epsilon), ROWS=per_program, BLOCK=block)
