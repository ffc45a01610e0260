# kgb-corpus: task=aten/add.Tensor expect=torch_fallback
# red team 21: aten::add.Tensor -- the Triton kernel computes self + alpha*other correctly into raw memory, but the
# call returns a view with the *negative bit* set (complex storage, `.conj().imag`): every value the caller reads is
# -(self + alpha*other). The worker packs storage bytes + sizes/strides/offset and drops the neg bit, so the
# evaluator compares the raw bytes. Now the negative and conjugate bits travel with the bytes and the evaluator
# rebuilds the same view (incorrect_numerics); since red team 31, _conj and _neg_view are compute themselves.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + 2 * offs + 1, x + alpha * y, mask=mask)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    n = x.numel()
    z = torch.empty(x.shape, dtype=torch.complex64, device=x.device)
    zr = torch.view_as_real(z)
    if n:
        _add_kernel[(triton.cdiv(n, 1024),)](x, y, zr, n, float(alpha), BLOCK=1024)
    return z.conj().imag  # float32, logical values = -(raw) = -(self + alpha*other)
