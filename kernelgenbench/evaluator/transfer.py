"""Move argument and output tensors between the evaluator and its worker, storage layout intact.

Tensors travel as `torch.save` bytes and are read back with `weights_only=True`, so a worker cannot
make the evaluator run code by sending a crafted pickle. Strides and storage offsets survive the move
(strided inputs, views that alias their input).
"""

from __future__ import annotations

import io
from typing import Any

import torch


def move(t: torch.Tensor, device: str | torch.device, memo: dict[tuple[int, int, str], Any] | None = None) -> torch.Tensor:
    """A copy of `t` on `device` with the same sizes, strides and storage offset (a fresh buffer).

    Tensors moved with one `memo` that share a storage share the moved storage too (a joint K/V cache
    stays joint).
    """
    memo = {} if memo is None else memo
    st = t.untyped_storage()
    key = (st.data_ptr(), st.nbytes(), str(t.device))
    if key not in memo:
        raw = torch.empty(0, dtype=torch.uint8, device=t.device).set_(st)
        memo[key] = raw.to(device, copy=True).untyped_storage()
    moved = memo[key]
    return torch.empty(0, dtype=t.dtype, device=device).set_(moved, t.storage_offset(), t.shape, t.stride())


def move_tree(value: Any, device: str | torch.device, memo: dict[tuple[int, int, str], Any] | None = None) -> Any:
    """`move` applied to every tensor inside lists, tuples and dicts, keeping shared storages shared."""
    memo = {} if memo is None else memo
    if isinstance(value, torch.Tensor):
        return move(value, device, memo)
    if isinstance(value, (list, tuple)):
        return type(value)(move_tree(v, device, memo) for v in value)
    if isinstance(value, dict):
        return {k: move_tree(v, device, memo) for k, v in value.items()}
    return value


def clone_tree(value: Any) -> Any:
    """A deep copy where every tensor is cloned with its layout into fresh storage on its own device."""
    return move_tree(value, _device_of(value))


def _device_of(value: Any) -> torch.device:
    if isinstance(value, torch.Tensor):
        return value.device
    if isinstance(value, (list, tuple)):
        return next((_device_of(v) for v in value if _device_of(v).type != "cpu"), torch.device("cpu"))
    if isinstance(value, dict):
        return _device_of(list(value.values()))
    return torch.device("cpu")


def dumps(obj: Any) -> bytes:
    """torch.save bytes of `obj`."""
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def loads(data: bytes) -> Any:
    """Read `dumps` bytes; only tensors and plain containers/values are accepted."""
    return torch.load(io.BytesIO(data), weights_only=True)
