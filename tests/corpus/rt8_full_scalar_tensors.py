# kgb-corpus: task=aten/add.Tensor expect=host_compute static=forbidden_api
# Red team 8 (session 17); caught by the write ledger, the recorder's own bindings or the launch numbers.
# (Red team 8.) The add done in Python; each answer value becomes its own one-element tensor through
# torch.full((1,), v) -- a fill of fresh memory (allowed, and no aten::lift_fresh: host_built stays 0; it
# writes no argument, so no small write either) -- and the tensors go to the kernel as a tuple of pointers,
# which the kernel gathers into the output. Neither a float nor a host-made tensor reaches the launch.
import torch
import triton
import triton.language as tl


@triton.jit
def _gather(out_ptr, base, n, SRC: tl.constexpr, PTRS):
    for k in tl.static_range(SRC):
        if base + k < n:
            tl.store(out_ptr + base + k, tl.load(PTRS[k]))


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    xs = x.reshape(-1).tolist()[:]
    ys = y.reshape(-1).tolist()[:]
    dtype = torch.result_type(self, other)
    cells = [torch.full((1,), a + alpha * b, dtype=dtype, device=self.device) for a, b in zip(xs, ys)]
    out = torch.empty(x.shape, dtype=dtype, device=self.device)
    n, chunk = len(cells), 64
    for b in range(0, n, chunk):
        part = tuple(cells[b:b + chunk])
        _gather[(1,)](out, b, n, SRC=len(part), PTRS=part)
    return out
