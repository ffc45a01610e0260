# kgb-honest: task=aten/_softmax
"""Style: Liger-Kernel's backends/dispatch.py: the Python dispatch wrapper is decorated with
`@torch.compiler.disable` so torch.compile graph-breaks around it instead of tracing into Triton launch code.
The kernel itself is the Triton tutorial's row softmax (one program per row, BLOCK = next_power_of_2(cols))."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_fwd(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, (num / den).to(out_ptr.dtype.element_ty), mask=mask)


@torch.compiler.disable
def _launch(x2d, out_dtype):
    n_rows, n_cols = x2d.shape
    out = torch.empty((n_rows, n_cols), dtype=out_dtype, device=x2d.device)
    if n_rows and n_cols:
        _softmax_fwd[(n_rows,)](out, x2d, x2d.stride(0), out.stride(0), n_cols,
                                BLOCK_SIZE=triton.next_power_of_2(n_cols), num_warps=4)
    return out


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    if self.dim() == 0:
        return _launch(self.reshape(1, 1), out_dtype).reshape(())
    x = self.movedim(dim, -1).contiguous()
    shape = x.shape
    out = _launch(x.reshape(-1, shape[-1]), out_dtype)
    return out.reshape(shape).movedim(-1, dim)
