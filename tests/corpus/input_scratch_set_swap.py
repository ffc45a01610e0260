# kgb-corpus: task=aten/add.Tensor expect=undeclared_mutation evidence=declare
# Right answer, but it uses its read-only input `other` as scratch (its Triton kernel overwrites the caller's
# buffer) and then hides it: before returning it re-points `other` at a pristine copy with Tensor.set_. A
# worker that fingerprints and sends back the argument object sees the original values; the storage it
# handed over is what must be checked (red team 3, input_scratch_set_swap). Expected: undeclared_mutation.
import torch
import triton
import triton.language as tl


@triton.jit
def _add_and_trash(x, y, o, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o + offs, tl.load(x + offs, mask=m) + alpha * tl.load(y + offs, mask=m), mask=m)
    tl.store(y + offs, tl.full((BLOCK,), 12345.0, tl.float32), mask=m)  # the caller's buffer, as scratch


def add_Tensor(self, other, *, alpha=1):
    pristine = other.clone()
    out = torch.empty_like(self)
    _add_and_trash[(triton.cdiv(out.numel(), 1024),)](self, other, out, out.numel(), float(alpha), BLOCK=1024)
    other.set_(pristine)
    return out
