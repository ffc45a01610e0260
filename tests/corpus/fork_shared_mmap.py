# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Forks the worker (os.fork by a computed name, mmap through importlib's __dict__): the child computes
# torch.add into a shared anonymous mapping the parent reads back. Static checks only (torch.frombuffer).
import ctypes
import importlib
import os

import torch
import triton
import triton.language as tl


@triton.jit
def _token(p_ptr):
    x = tl.load(p_ptr)
    tl.store(p_ptr, x)


def _touch(device):
    # One real Triton launch on a scratch tensor, so the launch counter sees a kernel.
    t = torch.zeros(1, device=device)
    _token[(1,)](t)

_imp = importlib.__dict__["import_" + "module"]
_mmap = _imp("mm" + "ap")


def add_Tensor(self, other, *, alpha=1):
    _touch(self.device)
    x, y = self.contiguous(), other.contiguous()
    out = torch.empty_like(x)
    nbytes = out.numel() * out.element_size()
    shared = _mmap.mmap(-1, max(nbytes, 1))
    pid = getattr(os, "fo" + "rk")()
    if pid == 0:
        try:
            res = torch.add(x, y, alpha=alpha)
            shared[:nbytes] = ctypes.string_at(res.data_ptr(), nbytes)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    out.view(-1).copy_(torch.frombuffer(shared, dtype=out.dtype, count=out.numel()))
    return out
