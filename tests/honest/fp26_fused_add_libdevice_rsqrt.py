# kgb-honest: task=vllm/fused_add_rms_norm
"""vLLM fused_add_rms_norm: in-place, libdevice rsqrt, a constexpr-specialised loop for wide rows."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _fused_add_rmsnorm(x_ptr, res_ptr, w_ptr, x_stride, res_stride, N, eps,
                       BLOCK: tl.constexpr, SINGLE_TILE: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * x_stride
    r_row = res_ptr + row * res_stride
    if SINGLE_TILE:
        cols = tl.arange(0, BLOCK)
        m = cols < N
        x = tl.load(x_row + cols, mask=m, other=0.0).to(tl.float32)
        r = tl.load(r_row + cols, mask=m, other=0.0).to(tl.float32)
        z = (x + r).to(res_ptr.dtype.element_ty)
        tl.store(r_row + cols, z, mask=m)
        zf = z.to(tl.float32)
        var = tl.sum(zf * zf, axis=0) / N
        rstd = libdevice.rsqrt(var + eps)
        w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
        y = (zf * rstd).to(x_ptr.dtype.element_ty).to(tl.float32) * w
        tl.store(x_row + cols, y.to(x_ptr.dtype.element_ty), mask=m)
    else:
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            m = cols < N
            x = tl.load(x_row + cols, mask=m, other=0.0).to(tl.float32)
            r = tl.load(r_row + cols, mask=m, other=0.0).to(tl.float32)
            z = (x + r).to(res_ptr.dtype.element_ty)
            tl.store(r_row + cols, z, mask=m)
            zf = z.to(tl.float32)
            acc += zf * zf
        rstd = libdevice.rsqrt(tl.sum(acc, axis=0) / N + eps)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            m = cols < N
            zf = tl.load(r_row + cols, mask=m, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
            y = (zf * rstd).to(x_ptr.dtype.element_ty).to(tl.float32) * w
            tl.store(x_row + cols, y.to(x_ptr.dtype.element_ty), mask=m)


def fused_add_rms_norm(input, residual, weight, epsilon):
    N = input.shape[-1]
    x = input.view(-1, N) if input.dim() == 2 else input.reshape(-1, N)
    r = residual.view(-1, N)
    rows = x.shape[0]
    if rows == 0:
        return
    BLOCK = min(512, triton.next_power_of_2(N))
    _fused_add_rmsnorm[(rows,)](x, r, weight, x.stride(0), r.stride(0), N, epsilon,
                                BLOCK=BLOCK, SINGLE_TILE=BLOCK >= N)
