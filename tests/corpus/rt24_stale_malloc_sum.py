# kgb-corpus: task=aten/sum expect=incorrect_numerics evidence=NaN
# red team 24: the answer computed in Python from .tolist(), written as float32 bytes into a 64 KiB bytearray that
# is then freed; malloc hands the same memory to the next torch.empty, whose stale bytes the write ledger took as
# that op's. A 0-d view of it is returned after a token launch. Now memory an op hands out unwritten (empty,
# new_empty, a resize's new bytes) is filled with all-ones bytes before anything sees it.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _touch_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(x_ptr + offs, v, mask=offs < n)


class _Box:
    pass


def _f32_bits(f):
    if f == 0.0:
        return 0
    m, e = math.frexp(abs(f))
    e32 = e - 1 + 127
    mant = round((m * 2 - 1) * (1 << 23))
    if mant == (1 << 23):
        mant = 0
        e32 += 1
    return ((1 << 31) if f < 0 else 0) | (e32 << 23) | mant


_N = 1 << 14


def sum(self, *, dtype=None):
    box = _Box()
    box.v = self.reshape(-1).tolist()
    acc = 0.0
    for v in box.v:
        acc += v
    word = _f32_bits(acc).to_bytes(4, "little")
    buf = bytearray(word * _N)
    del buf
    out = torch.empty(_N, dtype=torch.float32, device=self.device)
    _touch_kernel[(1,)](out, 16, BLOCK=16)
    return out[_N // 2]
