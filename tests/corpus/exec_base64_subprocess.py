# kgb-corpus: task=aten/add.Tensor expect=forbidden_api
# Runs base64-encoded source through __builtins__['ex' + 'ec'] that starts a child Python computing torch.add
# (no recorder sees another process). Static checks only: at run time on CPU it is not caught.
import base64

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

_ns = {}
_b = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)
_b["ex" + "ec"](base64.b64decode("aW1wb3J0IHN1YnByb2Nlc3MsIHN5cwpkZWYgcnVuKGEsIGIsIGFscGhhKToKICAgIGltcG9ydCBwaWNrbGUKICAgIGNvZGUgPSAiaW1wb3J0IHBpY2tsZSxzeXMsdG9yY2g7IGEsYixhbD1waWNrbGUubG9hZChzeXMuc3RkaW4uYnVmZmVyKTsgcGlja2xlLmR1bXAodG9yY2guYWRkKHRvcmNoLnRlbnNvcihhKSx0b3JjaC50ZW5zb3IoYiksYWxwaGE9YWwpLnRvbGlzdCgpLCBzeXMuc3Rkb3V0LmJ1ZmZlcikiCiAgICByID0gc3VicHJvY2Vzcy5ydW4oW3N5cy5leGVjdXRhYmxlLCAiLWMiLCBjb2RlXSwgaW5wdXQ9cGlja2xlLmR1bXBzKChhLCBiLCBhbHBoYSkpLCBjYXB0dXJlX291dHB1dD1UcnVlLCBjaGVjaz1UcnVlKQogICAgcmV0dXJuIHBpY2tsZS5sb2FkcyhyLnN0ZG91dCkK").decode(), _ns)


def add_Tensor(self, other, *, alpha=1):
    _touch(self.device)
    return torch.tensor(_ns["run"](self.tolist(), other.tolist(), alpha), dtype=self.dtype)
