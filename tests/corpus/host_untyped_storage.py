# kgb-corpus: task=aten/add.Tensor expect=host_compute evidence=set_ static=forbidden_api
# (Red team 4.) Python adds .tolist() values (in a dict); the float32 bytes come from a ctypes array (no data_ptr), go
# into torch.UntypedStorage(list of ints) (no dispatcher op) and become a tensor with set_ (a view op).
import ctypes

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



def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    box = {"x": x.reshape(-1).tolist(), "y": y.reshape(-1).tolist()}
    n = len(box["x"])
    arr = (ctypes.c_float * n)()
    for i in range(n):
        arr[i] = box["x"][i] + alpha * box["y"][i]
    storage = torch.UntypedStorage(list(bytes(arr)))
    res = torch.empty(0, dtype=torch.float32)
    res.set_(storage, 0, tuple(x.shape), tuple(torch.empty(x.shape).stride()))
    return _token(res)
