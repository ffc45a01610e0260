"""Not honest: the address-keyed plan cache of honest/fp30_mul_ptrkey_plan_cache.py, and the product computed on
the host and handed to the kernel as a scalar (a 1-element output). Fresh rounds miss the cache and are compared
with each other: the scalar changes with the data."""
import torch
import triton
import triton.language as tl

_PLANS = {}


@triton.jit
def _plan_kernel(meta_ptr, n):
    tl.store(meta_ptr, n)


@triton.jit
def _put_kernel(out_ptr, meta_ptr, v):
    n = tl.load(meta_ptr)
    tl.store(out_ptr, v + 0 * n)


def mul_Tensor(self, other):
    out = torch.empty(torch.broadcast_shapes(self.shape, other.shape), dtype=torch.result_type(self, other))
    key = (self.data_ptr(), other.data_ptr(), out.numel())
    meta = _PLANS.get(key)
    if meta is None:
        meta = _PLANS[key] = torch.empty(1, dtype=torch.int32)
        _plan_kernel[(1,)](meta, out.numel())
    if out.numel() == 1:
        _put_kernel[(1,)](out, meta, self.reshape(-1).tolist()[0] * other.reshape(-1).tolist()[0])
    return out
