"""Whether a small output's values were made on the host: looked for in the host-made tensors a call reports.

For outputs of a few hundred elements or more, a host-made tensor as large as the output is the answer
(checks/host_data.py judges by size). A small output (a reduction to 13 rows) is as large as a shape, stride
or offset table a wrapper builds honestly, so there sizes say nothing and values do: the worker reports the
bytes of the host-made tensors (sandbox/dispatch.py), and here each small output's elements are looked up in
them, as raw words of the output's width (an answer packed as int32 bits of floats) and as values cast to
the output's dtype (float64 sums cast to float32). Zero words are not counted: every table holds zeros.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

import torch

from kernelgenbench.sandbox.protocol import HostMade

SMALL_OUTPUT = 256  # elements: larger outputs are judged by the host-made data's size (checks/host_data.py)


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _tensors(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _tensors(v)]
    return []


def _words(t: torch.Tensor) -> list[bytes]:
    """The tensor's elements as raw bytes, one word per element."""
    flat = t.detach().cpu().contiguous().reshape(-1)
    raw = flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b""
    k = flat.element_size()
    return [raw[i:i + k] for i in range(0, len(raw), k)]


def _decoded(made: Iterable[HostMade]) -> list[tuple[torch.dtype | None, bytes]]:
    """Each host-made tensor's dtype (None: not one torch knows, or its bytes are no whole number of elements)
    and bytes."""
    out = []
    for h in made:
        raw, dtype = base64.b64decode(h.data), getattr(torch, h.dtype, None)
        whole = isinstance(dtype, torch.dtype) and len(raw) % torch.empty(0, dtype=dtype).element_size() == 0
        out.append((dtype if whole else None, raw))
    return out


def _host_words(made: list[tuple[torch.dtype | None, bytes]], like: torch.Tensor) -> set[bytes]:
    """Every word of `like`'s width in the host-made data: raw, and each value cast to `like`'s dtype."""
    k, out = like.element_size(), set()
    for dtype, raw in made:
        out |= {raw[i:i + k] for i in range(0, len(raw) - k + 1, k)}
        if dtype is not None and raw:
            try:
                out |= set(_words(torch.frombuffer(bytearray(raw), dtype=dtype).to(like.dtype)))
            except (RuntimeError, TypeError):  # no cast between these dtypes: the raw words stand
                pass
    return out


def matched(made: tuple[HostMade, ...], outputs: Any) -> int:
    """Of the small outputs (returns and written arguments), the most non-zero elements one holds that occur
    in the host-made data; 0 when there is none to compare."""
    small = [t for t in _tensors(outputs) if 0 < t.numel() < SMALL_OUTPUT]
    if not made or not small:
        return 0
    decoded, best = _decoded(made), 0
    for out in small:
        found, zero = _host_words(decoded, out), bytes(out.element_size())
        best = max(best, sum(w != zero and w in found for w in _words(out)))
    return best


def kept_bytes(made: tuple[HostMade, ...]) -> int:
    """How many bytes of host-made data the report carries (the rest did not fit and cannot be looked into)."""
    return sum(len(raw) for _, raw in _decoded(made))


def float_elements(made: tuple[HostMade, ...]) -> int:
    """Elements of floating-point host-made data: a small output's answer transformed on the way (negated, in
    float64) matches no value, yet honest tables for small outputs are integers (shapes, strides, offsets)."""
    return sum(len(raw) // torch.empty(0, dtype=dtype).element_size() for dtype, raw in _decoded(made)
               if dtype is not None and (dtype.is_floating_point or dtype.is_complex))
