# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Adds on the host: .tolist() of both inputs (unpacked in one assignment), a recursive helper that zips
# them, torch.tensor back. Nothing is dispatched on CPU; the static check follows the lists into the helper.
import torch
import triton
import triton.language as tl


@triton.jit
def _token(p_ptr):
    x = tl.load(p_ptr)
    tl.store(p_ptr, x)


def _touch(device):
    # One real Triton launch on a scratch tensor, so the launch counter sees a kernel.
    t = torch.zeros(1, device=device)
    _token[(1,)](t)


def add_Tensor(self, other, *, alpha=1):
    _touch(self.device)
    a, b = self.tolist(), other.tolist()

    def rec(u, v):
        return [rec(p, q) for p, q in zip(u, v, strict=True)] if isinstance(u, list) else u + alpha * v

    return torch.tensor(rec(a, b), dtype=self.dtype)
