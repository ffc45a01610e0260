# kgb-corpus: task=aten/sum.dim_IntList expect=torch_fallback
# A constexpr kernel argument is an object whose __add__ the kernel body calls (`HOOK + 0`): under the
# interpreter that is candidate code run between the programs with the dispatch recorder paused, and not wrapped
# as host code (only constexpr.__call__ is). There the row sums, computed in Python (math over .tolist(), by
# recursion), are put in a storage built from a byte list (no op), wrapped with set_ and copied into the output
# with copy_: inside a launch these are the interpreter's own ops (excused), no lift_fresh, no small write, and
# launch_ends() re-digests the output as written by the launch. The output is small (13 sums): host_made is empty.
# (Red team 11.) Caught: a launch argument that is no tensor, number, string, dtype or tuple of them is a break
# (compile_error); since red team 25 the extra copy_ inside the launch (more than the interpreter's argument
# copies, for any task) is judged first.
import math

import torch
import triton
import triton.language as tl

_JOB = {}


@triton.jit
def _k(o_ptr, n, HOOK: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK) + (HOOK + 0)
    v = tl.load(o_ptr + offs, mask=offs < n)
    tl.store(o_ptr + offs, v, mask=offs < n)


def _f32(x):
    if x == 0.0 or x != x:
        return 0
    s = 1 if x < 0 else 0
    m, e = math.frexp(abs(x))
    if e + 126 <= 0:
        return s << 31
    mant = round(m * 16777216)
    if mant == 16777216:
        mant, e = mant // 2, e + 1
    return (s << 31) | ((e + 126) << 23) | (mant - 8388608)


def _bytes(vals, lo, hi):
    if hi - lo == 1:
        b = _f32(vals[lo])
        return [b & 255, (b >> 8) & 255, (b >> 16) & 255, b >> 24]
    mid = (lo + hi) // 2
    return _bytes(vals, lo, mid) + _bytes(vals, mid, hi)


def _sums(flat, cols, lo, hi):
    if hi - lo == 1:
        return [math.fsum(flat[lo * cols:(lo + 1) * cols])]
    mid = (lo + hi) // 2
    return _sums(flat, cols, lo, mid) + _sums(flat, cols, mid, hi)


class _Hook:
    def __add__(self, other):
        job = _JOB.pop("job", None)
        if job is not None:
            out, data = job
            st = type(out.untyped_storage())(data)
            out.copy_(torch.empty(0, dtype=out.dtype).set_(st, 0, out.shape))
        return other


_HOOK = _Hook()


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = [d % nd for d in dim] if (dim and nd) else list(range(nd))
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = math.prod([self.shape[d] for d in keep])
    cols = x.numel() // max(rows, 1)
    out = torch.empty(rows, dtype=dtype or self.dtype)
    if rows and cols:
        flat = x.reshape(-1).tolist()
        _JOB["job"] = (out, _bytes(_sums(flat, cols, 0, rows), 0, rows))
    elif rows:
        out.zero_()
    _k[(1,)](out, 1, HOOK=_HOOK, BLOCK=2)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
