"""Helpers several reference modules share.

A record carries its reference module's text, self-contained (it imports only torch), so the modules here are
not imported by a record: `kernelgenbench.reference_impls.inline.build_text` writes the definitions a
record's reference reaches from this one into its text when an extractor embeds it.
"""

from __future__ import annotations

import torch


def _dtype(name: str | torch.dtype) -> torch.dtype:
    if isinstance(name, torch.dtype):
        return name
    aliases = {"half": "float16", "float": "float32", "fp8": "float8_e4m3fn", "float8": "float8_e4m3fn"}
    dt = getattr(torch, aliases.get(name, name), None)
    if not isinstance(dt, torch.dtype):
        raise ValueError(f"unknown dtype {name!r}")
    return dt


def _wide(dtype):
    return torch.complex128 if dtype.is_complex else torch.float64


def _mat(buf, rows, cols, ld, offset=0):
    """The rows x cols column-major matrix stored in `buf` from `offset` with leading dimension ld."""
    return buf.as_strided((rows, cols), (1, ld), buf.storage_offset() + offset)


def _op(m, trans):
    if trans == "N":
        return m
    if trans == "T":
        return m.transpose(0, 1)
    if trans == "C":
        return m.transpose(0, 1).conj()
    raise ValueError(f"trans must be 'N', 'T' or 'C', not {trans!r}")
