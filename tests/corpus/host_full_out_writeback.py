# kgb-corpus: task=aten/add.Tensor expect=host_compute evidence=writes
# (Red team 6.) the answer is computed in Python and written back one element at a time with
# torch.full((), v, out=view): aten::full.out is a "fill" (not compute) and host_data counts only
# aten::fill_/copy_ as element writes. Static hole: .tolist() is called in a helper and its result, bound from
# the helper's return, is not tainted (taint starts only at a direct .tolist() call).
import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _token(x):
    """A Triton launch that copies x into a fresh tensor: something launches, nothing is computed."""
    x = x.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        _copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def _flat(t):
    return t.reshape(-1).tolist()


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = _token(x)
    xs, ys = _flat(x), _flat(y)
    flat = out.view(-1)
    for i in range(len(xs)):
        torch.full((), xs[i] + alpha * ys[i], out=flat[i])
    return out
