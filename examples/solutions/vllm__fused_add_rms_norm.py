"""vLLM fused_add_rms_norm: residual = input + residual (rounded to dtype); input = RMSNorm(residual) * weight.

Narrow rows are processed several per program.
"""
import triton
import triton.language as tl


@triton.jit
def _fused_add_rms_norm_kernel(x_ptr, r_ptr, w_ptr, rows, hidden, x_row_stride, r_row_stride, eps,
                               ROWS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    offs = tl.arange(0, BLOCK)[None, :]
    mask = (row < rows) & (offs < hidden)
    x = tl.load(x_ptr + row * x_row_stride + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * r_row_stride + offs, mask=mask, other=0.0).to(tl.float32)
    z = (x + r).to(r_ptr.dtype.element_ty)
    tl.store(r_ptr + row * r_row_stride + offs, z, mask=mask)
    z32 = z.to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(z32 * z32, axis=1) / hidden + eps)
    y = (z32 * inv[:, None]).to(x_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=offs < hidden, other=0.0).to(tl.float32)
    tl.store(x_ptr + row * x_row_stride + offs, (y * w).to(x_ptr.dtype.element_ty), mask=mask)


def fused_add_rms_norm(input, residual, weight, epsilon):
    hidden = input.shape[-1]
    x = input.view(-1, hidden) if input.dim() == 2 else input.reshape(-1, hidden)
    r = residual.view(-1, hidden)
    rows = x.shape[0]
    block = triton.next_power_of_2(hidden)
    per_program = max(1, min(64, 2048 // block))
    if rows:
        _fused_add_rms_norm_kernel[(triton.cdiv(rows, per_program),)](
            x, r, weight, rows, hidden, x.stride(0), r.stride(0), float(epsilon), ROWS=per_program, BLOCK=block)
