"""torch inductor's allocators, routed through the dispatcher in the candidate's process.

Code that torch inductor generates allocates its buffers with `torch._C._dynamo.guards._empty_strided_cpu` (and
`_cuda`, `_xpu`, ...), C functions that make a tensor below the dispatcher: no op is recorded, so the write
ledger would meet the output's storage first at a launch, holding bytes no known writer left (read as host-made
data: false-positive hunt 17). Replaced before the candidate is imported (generated code binds them at import)
by the same allocation through `torch.empty_strided`, which the dispatch recorder sees. The originals stay
reachable to a candidate that digs for them; an allocation made with one is then judged as it was before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

# (name in torch._C._dynamo.guards, device, pinned)
_ALLOCATORS = (("_empty_strided_cpu", "cpu", False), ("_empty_strided_cpu_pinned", "cpu", True),
               ("_empty_strided_cuda", "cuda", False), ("_empty_strided_xpu", "xpu", False),
               ("_empty_strided_mtia", "mtia", False))


def route_inductor_allocators() -> None:
    """Replace inductor's below-the-dispatcher allocators with dispatched ones (call before the import)."""
    try:
        from torch._C._dynamo import guards
    except ImportError:  # a torch without dynamo: nothing generated code could call
        return
    for name, device, pinned in _ALLOCATORS:
        if hasattr(guards, name):
            setattr(guards, name, _allocator(device, pinned))


def _allocator(device: str, pinned: bool) -> Callable[..., torch.Tensor]:
    def empty_strided(size: Any, stride: Any, dtype: torch.dtype) -> torch.Tensor:
        return torch.empty_strided(size, stride, dtype=dtype, device=device, pin_memory=pinned)

    empty_strided.__name__ = f"empty_strided_{device}{'_pinned' if pinned else ''}"
    return empty_strided
