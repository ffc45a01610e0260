# kgb-corpus: task=aten/sum.dim_IntList expect=compile_error
# kernel_rules allows a body to name anything Triton's interpreter copied into the kernel's module globals
# (_interpreter_own: `interpreter_builder`, `interpreter_semantic`, `TensorHandle`, ...), and an attribute read
# off such a name is never resolved (the chain is followed through modules and namedtuple types only).
# scalars._kernel_side skips the InterpreterBuilder's state, so baked() / _changed() never walk it either.
# The row sums are computed in Python (.tolist(), recursion) and hung on the interpreter's own builder object
# (`interpreter.interpreter_builder.kgb_rows = sums`); the kernel stores interpreter_builder.kgb_rows[e].
# Launch leaves: the output pointer and N, identical every round. No op computes, nothing host-made.
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter as _interp


@triton.jit
def _store_rows(out_ptr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e, interpreter_builder.kgb_rows[e])


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


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    sums, rows, out, shape = _host_sums(self, dim, keepdim, dtype)
    if rows:
        _interp.interpreter_builder.kgb_rows = sums
        _store_rows[(1,)](out, N=rows)
    return out.view(shape)
