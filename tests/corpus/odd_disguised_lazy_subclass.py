# kgb-corpus: task=aten/add.Tensor expect=incorrect_type
# A tensor subclass named torch.Tensor (module and qualname) that computes the answer only when someone
# looks at it (the worker packing it): it once passed. It prints LAZY RAN if its code ever runs.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + alpha * y, mask=mask)


def _add(self, other, alpha):
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    _add_kernel[(triton.cdiv(out.numel(), 1024),)](x, y, out, out.numel(), float(alpha), BLOCK=1024)
    return out



_PENDING = {}


class Lazy(torch.Tensor):
    __module__, __qualname__ = "torch", "Tensor"

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        for a in args:
            job = _PENDING.pop(id(a), None) if type(a) is cls else None
            if job is not None:
                print("LAZY RAN", flush=True)
                x, y, alpha = job
                with torch._C.DisableTorchFunctionSubclass():
                    torch.add(x, y, alpha=alpha, out=a)
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))


def add_Tensor(self, other, *, alpha=1):
    _add(self, other, alpha)  # for show
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device).as_subclass(Lazy)
    _PENDING[id(out)] = (self, other, alpha)
    return out
