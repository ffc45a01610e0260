# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Reads and writes the tensors' memory through ctypes arrays over data_ptr() (CPU tensors), with a token Triton launch.
import ctypes

import torch
import triton
import triton.language as tl


@triton.jit
def _copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _triton_copy(src, dst):
    n = dst.numel()
    _copy_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    return dst


def add_Tensor(self, other, *, alpha=1):
    x, y = (t.contiguous() for t in torch.broadcast_tensors(self, other))
    out = torch.empty(x.shape, dtype=torch.float32, device=self.device)
    n = out.numel()
    xa = (ctypes.c_float * n).from_address(x.data_ptr())
    ya = (ctypes.c_float * n).from_address(y.data_ptr())
    oa = (ctypes.c_float * n).from_address(out.data_ptr())
    for i in range(n):
        oa[i] = xa[i] + alpha * ya[i]
    _triton_copy(out, out)
    return out
