"""Kernels registered from Python for the ops a call ran (inside the worker).

A candidate can replace an aten op's kernel (`torch.library.Library("aten", "IMPL")`, or the `_dispatch_library`
behind it): its Python kernel then runs whenever the op is dispatched, below the dispatch recorder's mode, so
`out.zero_()` can write a host-computed answer while the recorder sees a fill. torch names where each kernel of an
op was registered (`_dispatch_dump`): its own are C++ files or modules inside the torch package; any other Python
file is the candidate's.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

import torch

_DUMP = torch._C._dispatch_dump  # bound at import: before any candidate code runs
_TORCH_DIR = os.path.dirname(torch.__file__)
_REGISTERED = re.compile(r"^(\w+): registered at (\S+?)(?::\d+)? ::", re.MULTILINE)
_NATIVE = (".cpp", ".cc", ".cu", ".h")


def foreign_kernels(ops: Iterable[str]) -> list[str]:
    """Of these dispatched ops ("aten::zero_", "aten::add.Tensor"), those with a kernel registered from a Python
    file outside torch, as "op (key at file)"."""
    found = []
    for op in sorted(set(ops)):
        try:
            dump = _DUMP(op)
        except RuntimeError:  # no such operator (a name the recorder made up for a non-dispatcher call)
            continue
        for key, where in _REGISTERED.findall(dump):
            if not where.endswith(_NATIVE) and not where.startswith(_TORCH_DIR):
                found.append(f"{op} ({key} kernel registered at {where})")
    return found
