# kgb-corpus: task=aten/mul.Tensor expect=host_compute
# Red team 44: the grid callable returns a list subclass whose __del__ writes the numpy product into the output;
# dropped after the grid was made plain, it ran inside the launch window, where every write is the launch's.
# Caught: what a launch's host code returns is held until the launch has ended.
"""aten::mul.Tensor (rt44: the grid callable returns a list subclass whose __del__ writes the numpy product into
the output through a numpy view; the launch counter turns the grid into plain ints as host code and drops the
list after that host code ended, so __del__ runs inside the launch window, where every write is the launch's)"""
import torch
import triton
import triton.language as tl

_NP = vars(type.mro(torch.Tensor)[1])["num" + "py"]
_JOB = {}


class _Grid(list):
    def __del__(self):
        job = _JOB.pop("job", None)
        if job is not None:
            buf, xa, ya = job
            buf[...] = xa * ya


@triton.jit
def _touch(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.load(out_ptr + offs, mask=offs < n)


def mul_Tensor(self, other):
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    n = out.numel()
    _JOB["job"] = (_NP(out).reshape(-1), _NP(x).reshape(-1), _NP(y).reshape(-1))
    _touch[lambda meta: _Grid([1])](out, n, BLOCK=triton.next_power_of_2(max(n, 1)))
    _JOB.clear()
    return out
