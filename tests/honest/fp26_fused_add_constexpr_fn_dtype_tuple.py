# kgb-honest: task=vllm/fused_add_rms_norm
"""fused_add_rms_norm: a constexpr_function handed (dtype, BLOCK) packed in a tuple; returns (rows, tl dtype)."""
import triton
import triton.language as tl


@triton.constexpr_function
def _plan(spec):
    dt, block = spec
    rows = max(1, min(64, 2048 // block))
    return rows, (tl.float32 if dt.primitive_bitwidth <= 32 else tl.float64)


@triton.jit
def _fused_add_rms_norm_kernel(x_ptr, r_ptr, w_ptr, rows, hidden, x_row_stride, r_row_stride, eps,
                               BLOCK: tl.constexpr):
    PLAN: tl.constexpr = _plan((x_ptr.dtype.element_ty, BLOCK))
    ROWS: tl.constexpr = PLAN[0]
    ACC: tl.constexpr = PLAN[1]
    row = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    offs = tl.arange(0, BLOCK)[None, :]
    mask = (row < rows) & (offs < hidden)
    x = tl.load(x_ptr + row * x_row_stride + offs, mask=mask, other=0.0).to(ACC)
    r = tl.load(r_ptr + row * r_row_stride + offs, mask=mask, other=0.0).to(ACC)
    z = (x + r).to(r_ptr.dtype.element_ty)
    tl.store(r_ptr + row * r_row_stride + offs, z, mask=mask)
    z32 = z.to(ACC)
    inv = 1.0 / tl.sqrt(tl.sum(z32 * z32, axis=1) / hidden + eps)
    y = (z32 * inv[:, None]).to(x_ptr.dtype.element_ty).to(ACC)
    w = tl.load(w_ptr + offs, mask=offs < hidden, other=0.0).to(ACC)
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
            x, r, weight, rows, hidden, x.stride(0), r.stride(0), float(epsilon), BLOCK=block)
