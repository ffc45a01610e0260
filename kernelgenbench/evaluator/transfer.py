"""Move argument and output tensors between the evaluator and its worker, storage layout intact.

Tensors travel as `torch.save` bytes and are read back with `weights_only=True`, so a worker cannot
make the evaluator run code by sending a crafted pickle. Strides and storage offsets survive the move
(strided inputs, views that alias their input).
"""

from __future__ import annotations

import io
from typing import Any

import torch


def move(t: torch.Tensor, device: str | torch.device) -> torch.Tensor:
    """A copy of `t` on `device` with the same sizes, strides and storage offset (a fresh buffer)."""
    st = t.untyped_storage()
    n = st.nbytes() // t.element_size() if t.element_size() else 0
    flat = torch.empty(0, dtype=t.dtype, device=t.device).set_(st, 0, (n,), (1,))
    moved = flat.to(device, copy=True)
    return moved.as_strided(t.shape, t.stride(), t.storage_offset())


def move_tree(value: Any, device: str | torch.device) -> Any:
    """`move` applied to every tensor inside lists, tuples and dicts."""
    if isinstance(value, torch.Tensor):
        return move(value, device)
    if isinstance(value, (list, tuple)):
        return type(value)(move_tree(v, device) for v in value)
    if isinstance(value, dict):
        return {k: move_tree(v, device) for k, v in value.items()}
    return value


def clone_tree(value: Any) -> Any:
    """A deep copy where every tensor is cloned with its layout into fresh storage on its own device."""
    if isinstance(value, torch.Tensor):
        return move(value, value.device)
    if isinstance(value, (list, tuple)):
        return type(value)(clone_tree(v) for v in value)
    if isinstance(value, dict):
        return {k: clone_tree(v) for k, v in value.items()}
    return value


def dumps(obj: Any) -> bytes:
    """torch.save bytes of `obj`."""
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def loads(data: bytes) -> Any:
    """Read `dumps` bytes; only tensors and plain containers/values are accepted."""
    return torch.load(io.BytesIO(data), weights_only=True)
