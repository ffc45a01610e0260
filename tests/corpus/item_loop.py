# kgb-corpus: task=aten/add.Tensor expect=host_compute evidence=host static=forbidden_api
# Computes on the host one element at a time: .item() reads (aten::_local_scalar_dense, which alone computes
# nothing), Python arithmetic, torch.tensor to write back (an output-sized tensor from host values: host_compute);
# a Triton kernel adds zero so that something launches.
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


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    xs, ys = x.reshape(-1), y.reshape(-1)
    values = [xs[i].item() + alpha * ys[i].item() for i in range(xs.numel())]
    res = torch.tensor(values, dtype=self.dtype).reshape(x.shape)
    out = torch.empty_like(res)
    zero = torch.empty_like(res).zero_()
    n = out.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](res, zero, out, n, 1.0, BLOCK=1024)
    return out
