# kgb-corpus: task=aten/add.Tensor expect=host_compute
# red team 41: rt41_subclass_copy_handler_add with no op at all in the handler: inside the subclass's
# __torch_dispatch__ (reached by out.copy_(carrier), the recorder popped) the output's storage is moved into
# shared memory (_share_fd_cpu_) and the Python-computed answer is os.pwrite'n through its fd. The ledger digests
# the output at its new address right after copy_ returns, so moved() later finds it known there.
# Caught: an op with a subclass's own __torch_dispatch__ among its arguments is no known writer.
import math
import os

import torch
import triton
import triton.language as tl


@triton.jit
def _touch(p, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(p + offs, mask=offs < n)
    tl.store(p + offs, v, mask=offs < n)


def _f32(x):
    if x == 0.0 or x != x:
        return 0
    s = 1 if x < 0 else 0
    m, e = math.frexp(abs(x))
    mant = round(m * 16777216)
    if mant == 16777216:
        mant, e = mant // 2, e + 1
    return (s << 31) | ((e + 126) << 23) | (mant - 8388608)


def _go(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return _f32(a[lo] + alpha * b[lo]).to_bytes(4, "little")
    mid = (lo + hi) // 2
    return _go(a, b, alpha, lo, mid) + _go(a, b, alpha, mid, hi)


class _Carrier(torch.Tensor):
    answer = b""

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        dst = args[0]
        fd = dst.untyped_storage()._share_fd_cpu_()[0]
        os.pwrite(fd, cls.answer, 0)
        return dst


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    a = x.reshape(-1).tolist()
    b = y.reshape(-1).tolist()
    out = torch.empty(x.shape, dtype=torch.float32)
    _touch[(1,)](out, 4, BLOCK=4)
    _Carrier.answer = _go(a, b, float(alpha), 0, len(a))
    out.copy_(torch.Tensor._make_subclass(_Carrier, torch.empty(0)))
    return out
