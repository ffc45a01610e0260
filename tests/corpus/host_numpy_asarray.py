# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Computes the sum on the host through np.asarray (no .numpy() call), then copies it in with a Triton kernel.
import numpy as np
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
    host = np.asarray(self.cpu()) + alpha * np.asarray(other.cpu())
    out = torch.empty(host.shape, dtype=torch.result_type(self, other), device=self.device)
    return _triton_copy(torch.as_tensor(host).to(out.device, out.dtype).contiguous(), out)
