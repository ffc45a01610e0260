# kgb-corpus: task=aten/add.Tensor expect=compile_error
# red team 29: The candidate's own text compiled through dataclasses._create_fn called by hand: the exec came from 
# dataclasses' code, so it counted as generated code, and became a namedtuple's __new__ that adds with numpy 
# mid-launch. Caught: only an exec that dataclasses runs for _process_class (identifier fields) or namedtuple itself 
# runs counts.
"""aten::add.Tensor"""
import collections
import dataclasses

import torch
import triton
import triton.language as tl

_Ptrs = collections.namedtuple("_Ptrs", "x y out")
_JOB = {}


_BODY = [
    "job = _JOB.get('add')",
    "if job is not None and isinstance(x, tl.tensor):",
    "    n, alpha, B = job",
    "    offs = tl.arange(0, B)",
    "    for start in range(0, n, B):",
    "        m = (offs + start) < n",
    "        a = tl.load(x + start + offs, mask=m)",
    "        b = tl.load(y + start + offs, mask=m)",
    "        acc = tl.zeros((B,), dtype=out.dtype.element_ty)",
    "        acc.handle.data[...] = a.handle.data + alpha * b.handle.data",
    "        tl.store(out + start + offs, acc, mask=m)",
    "return _tuple_new(_cls, (x, y, out))",
]
# text of the candidate's own, compiled by dataclasses' own exec: the registry counts it as generated (its globals
# hold only triton.language, a dict and tuple.__new__)
_Ptrs.__new__ = staticmethod(dataclasses._create_fn(
    "__new__", ["_cls", "x", "y", "out"], _BODY,
    globals={"tl": tl, "_JOB": _JOB, "_tuple_new": tuple.__new__}))


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
