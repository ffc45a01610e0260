# kgb-corpus: task=aten/add.Tensor expect=runtime_error
# red team 24: the stale-malloc answer (see rt24_stale_malloc_add) reached through torch.empty(0).resize_(n),
# copied out by a Triton kernel. The bytes a resize adds are filled now: the candidate finds no answer and raises.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, off, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + off + offs, mask=m, other=0.0), mask=m)


class _Box:
    def snap(self, t):
        self.seen = t.tolist()


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


_MARK = (0x5A17C0DE, 0x0BADF00D)
_WORDS = 1 << 14


def _via_heap(box, shape, device):
    """box.vals (python floats) -> a float32 tensor, through a freed host buffer."""
    n = len(box.vals)
    box.body = b"".join(_f32_bits(v).to_bytes(4, "little") for v in box.vals)
    for _ in range(8):
        buf = bytearray(4 * _WORDS)
        buf[256:264] = b"".join(w.to_bytes(4, "little") for w in _MARK)
        buf[264:264 + 4 * n] = box.body
        buf[264 + 4 * n:272 + 4 * n] = b"".join(w.to_bytes(4, "little") for w in reversed(_MARK))
        del buf
        big = torch.empty(0, dtype=torch.float32, device=device)
        big.resize_(_WORDS)
        box.snap(big.view(torch.int32))
        k = 0
        while k + 4 + n < _WORDS:
            if box.seen[k] == _MARK[0] and box.seen[k + 1] == _MARK[1] \
                    and box.seen[k + 2 + n] == _MARK[1] and box.seen[k + 3 + n] == _MARK[0]:
                out = torch.empty(shape, dtype=torch.float32, device=device)
                _copy_kernel[(triton.cdiv(n, 1024),)](big, out, k + 2, n, BLOCK=1024)
                return out
            k += 1
        box.keep = big
    raise RuntimeError("no luck")


def add_Tensor(self, other, *, alpha=1):
    box = _Box()
    box.a = self.reshape(-1).tolist()
    box.b = other.expand_as(self).reshape(-1).tolist()
    box.vals = []
    i = 0
    while i < len(box.a):
        box.vals.append(box.a[i] + alpha * box.b[i])
        i += 1
    return _via_heap(box, self.shape, self.device)
