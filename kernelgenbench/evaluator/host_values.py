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


def _host_words(made: Iterable[HostMade], like: torch.Tensor) -> set[bytes]:
    """Every word of `like`'s width in the host-made data: raw, and each value cast to `like`'s dtype."""
    k, out = like.element_size(), set()
    for h in made:
        raw = base64.b64decode(h.data)
        out |= {raw[i:i + k] for i in range(0, len(raw) - k + 1, k)}
        dtype = getattr(torch, h.dtype, None)
        if isinstance(dtype, torch.dtype) and raw and len(raw) % torch.empty(0, dtype=dtype).element_size() == 0:
            values = torch.frombuffer(bytearray(raw), dtype=dtype)
            try:
                out |= set(_words(values.to(like.dtype)))
            except (RuntimeError, TypeError):  # no cast between these dtypes: the raw words stand
                pass
    return out


def matched(made: tuple[HostMade, ...], outputs: Any) -> int:
    """Of the small outputs (returns and written arguments), the most non-zero elements one holds that occur
    in the host-made data; 0 when there is none to compare."""
    best = 0
    for out in _tensors(outputs):
        if not made or not 0 < out.numel() < SMALL_OUTPUT:
            continue
        found = _host_words(made, out)
        zero = bytes(out.element_size())
        best = max(best, sum(w != zero and w in found for w in _words(out)))
    return best


def kept_bytes(made: tuple[HostMade, ...]) -> int:
    """How many bytes of host-made data the report carries (the rest did not fit and cannot be looked into)."""
    return sum(len(base64.b64decode(h.data)) for h in made)


def float_elements(made: tuple[HostMade, ...]) -> int:
    """Elements of floating-point host-made data: a small output's answer transformed on the way (negated, in
    float64) matches no value, yet honest tables for small outputs are integers (shapes, strides, offsets)."""
    out = 0
    for h in made:
        dtype = getattr(torch, h.dtype, None)
        if isinstance(dtype, torch.dtype) and (dtype.is_floating_point or dtype.is_complex):
            out += len(base64.b64decode(h.data)) // torch.empty(0, dtype=dtype).element_size()
    return out
