# kgb-corpus: task=aten/add.Tensor expect=torch_fallback evidence=profiler static=forbidden_api
# Reaches torch.ops.aten through getattr with computed names (past the static check) and calls the aten op
# under a guard that excludes the Python dispatch key: only the profiler's C++-level ops see it.
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

_ops = getattr(getattr(torch, "op" + "s"), "at" + "en")


def add_Tensor(self, other, *, alpha=1):
    _touch(self.device)
    guard = torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Python))
    with guard:
        return _ops.add.Tensor(self, other, alpha=alpha)
