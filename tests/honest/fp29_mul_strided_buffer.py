# kgb-honest: task=aten/mul.Tensor
"""Style: FlagGems' pointwise_dynamic wrappers hand kernels a `StridedBuffer` (flag_gems/utils/tensor_wrapper.py):
a plain object with the base tensor, its shape and strides, and the data pointer as a Python int taken from
`base.data_ptr()` (plus an offset); Triton takes it as a pointer through `data_ptr()` and `dtype`. The int is an
address, so it differs whenever the allocator places the tensors elsewhere (a tiny output, session 29's H100 run:
10 FlagGems ops judged host_compute on it)."""
import math

import torch
import triton
import triton.language as tl


class StridedBuffer:
    def __init__(self, base, shape=None, strides=None, dtype=None, offset=0):
        self._base = base
        self.dtype = dtype or base.dtype
        self.offset = offset
        self._data_ptr = base.data_ptr() + self.dtype.itemsize * offset
        self.shape = tuple(shape if shape is not None else base.shape)
        self._strides = tuple(strides if strides is not None else base.stride())
        self.device = base.device
        self.ndim = len(self.shape)

    def stride(self):
        return self._strides

    def size(self):
        return self.shape

    def numel(self):
        return math.prod(self.shape)

    def data_ptr(self):
        return self._data_ptr

    def untyped_storage(self):
        return self._base.untyped_storage()

    def storage_offset(self):
        return self.offset

    def new_empty(self, *args, **kwargs):
        return self._base.new_empty(*args, **kwargs)


@triton.jit
def _mul_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x * y).to(out_ptr.dtype.element_ty), mask=mask)


def mul_Tensor(self, other):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.to(dtype).contiguous(), y.to(dtype).contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        flat, unit = (n,), (1,)
        _mul_kernel[(triton.cdiv(n, 256),)](StridedBuffer(x, flat, unit), StridedBuffer(y, flat, unit),
                                            StridedBuffer(out, flat, unit), n, BLOCK=256)
    return out
