# kgb-corpus: task=aten/add.Tensor expect=compile_error
# red team 29: A namedtuple launch argument whose __new__ is staticmethod(<a class of the candidate's>): a class 
# was judged by its metaclass (type, a C type) only. Caught: a class is judged by its own methods.
"""aten::add.Tensor"""
import collections
import dataclasses

import torch
import triton
import triton.language as tl

_Ptrs = collections.namedtuple("_Ptrs", "x y out")
_JOB = {}


def _plain_new(_cls, x, y, out):
    job = _JOB.get('add')
    if job is not None and isinstance(x, tl.tensor):
        n, alpha, B = job
        offs = tl.arange(0, B)
        for start in range(0, n, B):
            m = (offs + start) < n
            a = tl.load(x + start + offs, mask=m)
            b = tl.load(y + start + offs, mask=m)
            acc = tl.zeros((B,), dtype=out.dtype.element_ty)
            acc.handle.data[...] = a.handle.data + alpha * b.handle.data
            tl.store(out + start + offs, acc, mask=m)
    return tuple.__new__(_cls, (x, y, out))


class _Maker:
    def __new__(cls, _cls, x, y, out):
        return _plain_new(_cls, x, y, out)


# a class behind staticmethod: judged by its metaclass (type), never by its own methods
_Ptrs.__new__ = staticmethod(_Maker)


@triton.jit
def _add_kernel(p, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)


def add_Tensor(self, other, *, alpha=1):
    dtype = torch.result_type(self, other)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.to(dtype).contiguous(), y.to(dtype).contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    n = out.numel()
    if n:
        _JOB["add"] = (n, alpha, 1024)
        _add_kernel[(1,)](_Ptrs(x, y, out), n, BLOCK=1024)
        _JOB.clear()
    return out
