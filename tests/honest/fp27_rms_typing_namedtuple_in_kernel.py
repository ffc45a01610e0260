# kgb-honest: task=vllm/rms_norm
"""Style: Triton's tuple/namedtuple support (python/test/unit/language/test_tuple.py `_namedtuple_create_func0`):
a typing.NamedTuple `_RowView(ptr, stride)` built inside the kernel and handed to @triton.jit helpers that load and
store a row through it."""
from typing import NamedTuple

import triton
import triton.language as tl


class _RowView(NamedTuple):
    ptr: object
    stride: object


@triton.jit
def _load_row(view, row, offs, mask):
    return tl.load(view.ptr + row * view.stride + offs, mask=mask, other=0.0).to(tl.float32)


@triton.jit
def _store_row(view, row, offs, mask, val):
    tl.store(view.ptr + row * view.stride + offs, val.to(view.ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rms_norm_kernel(out_ptr, out_stride, x_ptr, x_stride, w_ptr, hidden, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    src = _RowView(x_ptr, x_stride)
    dst = _RowView(out_ptr, out_stride)
    offs = tl.arange(0, BLOCK)
    mask = offs < hidden
    x = _load_row(src, row, offs, mask)
    var = tl.sum(x * x, axis=0) / hidden
    y = (x * tl.rsqrt(var + eps)).to(x_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    _store_row(dst, row, offs, mask, y * w)


def rms_norm(result, input, weight, epsilon):
    hidden = input.shape[-1]
    x = input.reshape(-1, hidden)
    out = result.view(-1, hidden)
    rows = x.shape[0]
    if rows == 0:
        return
    _rms_norm_kernel[(rows,)](out, out.stride(0), x, x.stride(0), weight, hidden, float(epsilon),
                              BLOCK=triton.next_power_of_2(hidden))
