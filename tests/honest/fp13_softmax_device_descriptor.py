# kgb-honest: task=aten/_softmax
"""Style: device-side tensor descriptors (tl.make_tensor_descriptor, Triton 3.4+): each program builds a descriptor
over the input and output matrices and loads/stores a [1, BLOCK] row tile through it (zero padding past the row)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_desc_kernel(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[rows, cols], strides=[cols, 1], block_shape=[1, BLOCK])
    o_desc = tl.make_tensor_descriptor(out_ptr, shape=[rows, cols], strides=[cols, 1], block_shape=[1, BLOCK])
    x = x_desc.load([row, 0]).to(tl.float32)
    offs = tl.arange(0, BLOCK)[None, :]
    x = tl.where(offs < cols, x, float("-inf"))
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    e = tl.where(offs < cols, e, 0.0)
    o_desc.store([row, 0], (e / tl.sum(e, axis=1)[:, None]).to(o_desc.dtype))


def _softmax(self, dim, half_to_float):
    out_dtype = torch.float32 if half_to_float else self.dtype
    x = self.movedim(dim, -1).contiguous() if self.dim() else self.reshape(1)
    cols = x.shape[-1]
    rows = x.numel() // cols if cols else 0
    out = torch.empty(x.shape, dtype=out_dtype, device=self.device)
    if rows:
        _softmax_desc_kernel[(rows,)](x, out, rows, cols, BLOCK=triton.next_power_of_2(cols))
    return out.movedim(-1, dim) if self.dim() else out.reshape(())
