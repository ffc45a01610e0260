# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error static=forbidden_api
# linecache manipulation: before the first launch the cached source of this file is edited so that the
# interpreter's rewrite (inspect.getsourcelines -> linecache) compiles a body reading a global Python list of
# host row sums, while the file (and a reviewer) shows an honest body. Expected caught: the worker judges the
# bytecode of the function it made, whatever source it was made from.
# (Red team 10.) Caught: the worker judges the bytecode it compiled, which reads a list: a break.
import linecache
import math

import torch
import triton
import triton.language as tl

_ANSWER = []


@triton.jit
def _store_rows(out_ptr, N: tl.constexpr):
    for i in tl.static_range(N):
        tl.store(out_ptr + i, 0.0 * i)


def _poison():
    name = _store_rows.fn.__code__.co_filename
    lines = linecache.getlines(name)
    lines = [l.replace("0.0 * i)", "_ANSWER[i])") if "tl.store(out_ptr + i, 0.0" in l else l for l in lines]
    linecache.cache[name] = (len("".join(lines)), None, lines, name)


def _host_rows(self, dim, keepdim, dtype):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = math.prod([self.shape[d] for d in keep])
    cols = x.numel() // max(rows, 1)
    flat = x.reshape(-1).tolist()[:]
    sums = [math.fsum(flat[r * cols:(r + 1) * cols]) for r in range(rows)]
    out = torch.empty(rows, dtype=dtype or self.dtype, device=self.device)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return sums, rows, out, shape


_poison()


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_rows(self, dim, keepdim, dtype)
    _ANSWER[:] = sums
    if rows:
        _store_rows[(1,)](out, N=rows)
    return out.view(shape)
