# kgb-corpus: task=aten/add.Tensor expect=runtime_error
# scalars._kernel_side skips every triton base_value, kernel_rules._launch_value takes any tl.tensor, and launch_args
# trusts it (no data_ptr): a *host-built* block passes as a constexpr with zero launch leaves. The sum (Python:
# .tolist(), recursion) fills an ndarray made as np.float32(0).reshape(1).repeat(b) (numpy names the static check
# allows), wrapped as tl.tensor(interpreter.TensorHandle(arr, fp32), block_type); the kernel stores that block.
# Should be caught: a tl.tensor (any base_value) is no launch value on a GPU: refuse it in _argument_breaks.
# (Red team 14.) Caught: a triton block built on the host is no launch argument (sandbox/launch_args.py): TypeError.
import torch
import triton
import triton.language as tl
from triton.runtime import interpreter
import numpy as np


@triton.jit
def _store(out_ptr, T: tl.constexpr, N: tl.constexpr, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(out_ptr + offs, T, mask=offs < N)


def _sums(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return (a[lo] + alpha * b[lo],)
    mid = (lo + hi) // 2
    return _sums(a, b, alpha, lo, mid) + _sums(a, b, alpha, mid, hi)


def _fill(arr, vals, lo, hi):
    if hi - lo == 1:
        arr[lo] = vals[lo]
        return
    mid = (lo + hi) // 2
    _fill(arr, vals, lo, mid)
    _fill(arr, vals, mid, hi)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        b = triton.next_power_of_2(n)
        vals = _sums(x.reshape(-1).tolist(), y.reshape(-1).tolist(), float(alpha), 0, n) + (0.0,) * (b - n)
        arr = np.float32(0).reshape(1).repeat(b)  # an ndarray from an allowed numpy name (a scalar's methods)
        _fill(arr, vals, 0, b)
        handle = interpreter.TensorHandle(arr, tl.float32)
        _store[(1,)](out, tl.tensor(handle, tl.block_type(tl.float32, [b])), N=n, B=b)
    return out
