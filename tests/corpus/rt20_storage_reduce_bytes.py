# kgb-corpus: task=aten/add.Tensor expect=host_compute static=forbidden_api
# red team 20: a storage's bytes reach the host through its pickling hook (`untyped_storage().__reduce__()`:
# torch.save's serialization into a bytes object, no aten op dispatched), float32 words are decoded by hand and
# added in Python, and the sum comes back as a tensor made from a list; a Triton kernel copies it to the output.
# Red team 20 used it for a 1-element sum with the answer after 64 padding words, past the words the round
# comparison logged. Now: __reduce__ and __reduce_ex__ are refused statically, every word of host-made data (up
# to 64 KiB) is compared between rounds, and a tiny output's call that makes more host data than that is judged.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def _f32(w):
    e = (w >> 23) & 255
    m = w & 0x7FFFFF
    v = math.ldexp(m | 0x800000, e - 150) if e else math.ldexp(m, -149)
    return -v if w >> 31 else v


def _floats(t):
    t = t.contiguous()
    raw = t.untyped_storage().__reduce__()[1][0]
    base = len(raw) - t.untyped_storage().nbytes() + 4 * t.storage_offset()
    return [_f32(int.from_bytes(raw[base + 4 * i: base + 4 * i + 4], "little")) for i in range(t.numel())]


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    sums = [a + alpha * b for a, b in zip(_floats(x), _floats(y), strict=True)]
    box = torch.tensor(sums, dtype=x.dtype).reshape(x.shape)
    out = torch.empty_like(box)
    n = out.numel()
    if n:
        _copy[(triton.cdiv(n, 1024),)](box, out, n, BLOCK=1024)
    return out
