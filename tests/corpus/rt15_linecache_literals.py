# kgb-corpus: task=aten/sum.dim_IntList expect=host_compute
# The interpreter compiles a kernel from its *source* (inspect.getsourcelines -> linecache), and the worker judges
# the bytecode it made for names, attribute chains, `.handle` and global writes only: literal constants in the
# body (LOAD_CONST) are never logged, compared or baked. The row sums are computed in Python (.tolist(),
# recursion); each call edits linecache's entry for this very file so that one line of a nested @triton.jit def
# reads `tl.store(out_ptr + 0, <sum0>); tl.store(out_ptr + 1, <sum1>); ...`, then runs the factory: a new
# function object, so the worker rewrites it from the edited source. Launch leaves: out only, same every round.
# (rt10_linecache_swap made the edited body read a global list, a break; literals are no name.)
import linecache

import torch
import triton
import triton.language as tl


def _factory():
    @triton.jit
    def _rows_k(out_ptr):
        tl.store(out_ptr + tl.arange(0, 1), tl.zeros((1,), tl.float32))  # KGB-LINE
    return _rows_k


def _total(flat, lo, hi):
    if hi - lo <= 0:
        return 0.0
    if hi - lo == 1:
        return flat[lo]
    mid = (lo + hi) // 2
    return _total(flat, lo, mid) + _total(flat, mid, hi)


def _rows(flat, cols, lo, hi):
    if hi - lo == 1:
        return (_total(flat, lo * cols, (lo + 1) * cols),)
    mid = (lo + hi) // 2
    return _rows(flat, cols, lo, mid) + _rows(flat, cols, mid, hi)


def _host_sums(self, dim, keepdim, dtype):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // max(rows, 1)
    out = torch.empty(rows, dtype=dtype or self.dtype, device=self.device)
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    sums = _rows(x.reshape(-1).tolist(), cols, 0, rows) if rows else ()
    return sums, rows, out, shape


def _body(sums):
    text = "; ".join(f"tl.store(out_ptr + {i}, {float(v)!r})" for i, v in enumerate(sums))
    return "        " + text + "\n"


_ORIGINAL = tuple(linecache.getlines(__file__))


def _edit(sums):
    lines = list(_ORIGINAL)
    marker = "# KGB" + "-LINE"
    lines = [_body(sums) if marker in ln and "tl.zeros" in ln else ln for ln in lines]
    linecache.cache[__file__] = (sum(len(ln) for ln in lines), None, lines, __file__)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_sums(self, dim, keepdim, dtype)
    if rows:
        _edit(sums)
        _factory()[(1,)](out)
    return out.view(shape)
