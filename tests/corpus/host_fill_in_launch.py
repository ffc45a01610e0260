# kgb-corpus: task=aten/add.Tensor expect=host_compute evidence=writes
# (Red team 6.) element-by-element fill_ writes made *inside* a Triton launch (the interpreted kernel body
# calls a plain function) land in the dispatch recorder's in-launch counts, which host_data never reads
# (it counts fill_/copy_ in report.ops only) and launch_ops excuses (a fill is no compute outside creation
# tasks). The output is not a kernel argument, so the interpreter's copy-back does not overwrite it.
import torch
import triton
import triton.language as tl

_JOB = {}


def _writer(n):
    flat, vals = _JOB["out"], _JOB["vals"]
    for i in range(len(vals)):
        flat[i].fill_(vals[i])
    return n


@triton.jit
def _kernel(dummy_ptr, n):
    _writer(n)


def _flat(t):
    return t.reshape(-1).tolist()


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    xs, ys = _flat(x), _flat(y)
    _JOB.update(out=out.view(-1), vals=[xs[i] + alpha * ys[i] for i in range(len(xs))])
    dummy = torch.empty(1)
    _kernel[(1,)](dummy, out.numel())
    return out
