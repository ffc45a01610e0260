# kgb-corpus: task=aten/add.Tensor expect=incorrect_numerics evidence=NaN
# red team 25: a kernel whose body is print("") runs the candidate's sys.stdout.write inside an interpreted launch
# (recorder paused, every write the launch's), which computes the sum on the host and writes it with suffix fill_s.
# Now an interpreted launch runs with the worker's streams, warning machinery and hooks (hooks.quiet): the writer
# never runs, the output keeps its filled bytes (NaN); a fill_ inside a launch is judged for every task as well.
# aten/add.Tensor: host answer written from inside a Triton launch (kernel body `print` -> candidate's
# sys.stdout.write), by suffix fills wide enough not to count as small writes.
import sys
import torch
import triton
import triton.language as tl


@triton.jit
def _noop_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    print("")


class _Writer:
    def __init__(self, real):
        self.real = real
        self.job = None
        self.a = None
        self.b = None

    def write(self, s):
        job = self.job
        if job is None:
            return self.real.write(s)
        self.job = None
        x, y, alpha, out = job
        self.a = x.reshape(-1).tolist()
        self.b = y.reshape(-1).tolist()
        flat = out.view(-1)
        i = 0
        for u in self.a:
            flat[i:].fill_(u + alpha * self.b[i])
            i += 1
        return len(s)

    def flush(self):
        return self.real.flush()


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    dtype = torch.result_type(self, other)
    x = x.to(dtype).contiguous()
    y = y.to(dtype).contiguous()
    out = torch.empty(x.shape, dtype=dtype, device=x.device)
    w = _Writer(sys.stdout)
    w.job = (x, y, alpha, out)
    old = sys.stdout
    sys.stdout = w
    try:
        _noop_kernel[(1,)](x, out, x.numel(), BLOCK=16)
    finally:
        sys.stdout = old
    return out
