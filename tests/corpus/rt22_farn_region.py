# kgb-corpus: task=vllm/fused_add_rms_norm expect=incorrect_numerics
# red team 22: vLLM fused_add_rms_norm, wrong in place: the right results are computed, then written where the
# caller's views do not look. A row-strided input (a [T, H] view of a [T, 2H] buffer) is restrided with as_strided_
# onto the buffer's unused right half and written there; a contiguous input / the residual is restrided column-major
# and written transposed. The argument objects show the right values; the caller's buffers hold the old input
# (strided case) or a transposed scramble. Now a written argument is judged through the view the caller handed over,
# unless the call resized it.
import torch
import triton
import triton.language as tl


@triton.jit
def _farn(x_ptr, r_ptr, w_ptr, ox_ptr, or_ptr, rows, hidden, xs0, rs0, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < hidden
    x = tl.load(x_ptr + row * xs0 + offs, mask=m, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * rs0 + offs, mask=m, other=0.0).to(tl.float32)
    z = (x + r).to(or_ptr.dtype.element_ty)
    tl.store(or_ptr + row * hidden + offs, z, mask=m)
    z32 = z.to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(z32 * z32, axis=0) / hidden + eps)
    y = (z32 * inv).to(ox_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(ox_ptr + row * hidden + offs, (y * w).to(ox_ptr.dtype.element_ty), mask=m)


@triton.jit
def _put(src_ptr, dst_ptr, R, C, d0, d1, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < R * C
    v = tl.load(src_ptr + i, mask=m)
    tl.store(dst_ptr + (i // C) * d0 + (i % C) * d1, v, mask=m)


def _hide(t, scratch):
    R, C = t.shape
    off, (s0, s1) = t.storage_offset(), t.stride()
    room = t.untyped_storage().nbytes() // t.element_size()
    if s1 == 1 and s0 >= 2 * C and off + C + (R - 1) * s0 + C <= room:
        t.as_strided_((R, C), (s0, 1), off + C)   # the padding the caller's view never reads
    else:
        t.as_strided_((R, C), (1, R), off)        # transposed in place
    n = R * C
    _put[(triton.cdiv(n, 1024),)](scratch, t, R, C, t.stride(0), t.stride(1), BLOCK=1024)


def fused_add_rms_norm(input, residual, weight, epsilon):
    rows, hidden = input.shape
    ox = torch.empty((rows, hidden), dtype=input.dtype, device=input.device)
    orr = torch.empty((rows, hidden), dtype=residual.dtype, device=residual.device)
    if rows:
        _farn[(rows,)](input, residual, weight, ox, orr, rows, hidden, input.stride(0), residual.stride(0),
                       float(epsilon), BLOCK=triton.next_power_of_2(hidden))
    _hide(input, ox)
    _hide(residual, orr)
