# kgb-corpus: task=aten/add.Tensor expect=host_compute static=forbidden_api
# The grid callable is host code the interpreter runs *inside* the launch (GridExecutor.__call__), where the
# write ledger treats every write as the launch's (launch_ends -> ledger.refresh re-digests all storages).
# It writes the sum computed in Python into the output with Tensor.map_ (no dispatched op); the kernel itself
# stores nothing. No op, no lift_fresh, no launch numbers: the write is credited to the Triton launch.
# (Red team 10.) Caught: grid callables and pre-run hooks run as the call's host code (recorded, the ledger checked after).
import torch
import triton
import triton.language as tl

_JOB = {}


@triton.jit
def _nop(out_ptr, n):
    pass


def _grid(meta):
    out, vals = _JOB.pop("job")
    it = iter(vals)
    out.map_(out, lambda a, b: next(it))
    return (1,)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    xs = x.reshape(-1).tolist()[:]
    ys = y.reshape(-1).tolist()[:]
    out = torch.empty(x.shape, dtype=torch.result_type(self, other), device=self.device)
    if out.numel():
        _JOB["job"] = (out, [a + alpha * b for a, b in zip(xs, ys)])
        _nop[_grid](out, out.numel())
    return out
