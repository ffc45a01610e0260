"""References of ATen tasks: the ATen op itself, called with the candidate's arguments.

An ATen task's reference is `torch.ops.aten.<name>.<overload>`, which runs on whatever device its inputs
are on. Where the installed torch has no kernel for that device (mm.dtype is CUDA-only), the reference
falls back to a decomposition from data/aten_reference_fallbacks.yaml. `reference_code` writes the small
self-contained module a record embeds (it imports torch only, never kernelgenbench).
"""

from __future__ import annotations

import functools
import keyword
from typing import Any

from kernelgenbench.datafiles import load_data

MODULE = "kernelgenbench.reference_impls.aten"

_TEMPLATE = '''"""Reference for aten::{qualified}: the ATen op itself, on the device of its inputs."""

import torch


def {function}(*args, **kwargs):
    """{schema}"""
    return getattr(getattr(torch.ops.aten, "{name}"), "{overload_attr}")(*args, **kwargs)
'''

_FALLBACK_TEMPLATE = '''"""Reference for aten::{qualified}: the ATen op itself, on the device of its inputs.

Where the installed torch has no kernel for that device, a decomposition computes the same result.
"""

import torch


def _decomposition({params}):
    {body}


def {function}(*args, **kwargs):
    """{schema}"""
    try:
        return getattr(getattr(torch.ops.aten, "{name}"), "{overload_attr}")(*args, **kwargs)
    except NotImplementedError:  # no kernel for this device in this build of torch
        return _decomposition(*args, **kwargs)
'''


@functools.cache
def _fallbacks() -> dict[str, dict[str, str]]:
    return dict(load_data("aten_reference_fallbacks.yaml") or {})


def entry_point(name: str, overload: str) -> str:
    """The function a candidate defines: 'add.Tensor' -> 'add_Tensor', 'add_.Tensor' -> 'add__Tensor'."""
    ep = f"{name}_{overload}" if overload else name
    return f"{ep}_" if keyword.iskeyword(ep) else ep


def reference_code(name: str, overload: str, schema_text: str) -> dict[str, Any]:
    """The record's `reference`: module, function and the module's full source."""
    qualified = f"{name}.{overload}" if overload else name
    fields = {
        "qualified": qualified,
        "function": entry_point(name, overload),
        "schema": schema_text.replace("\\", "\\\\").replace('"""', "'''"),
        "name": name,
        "overload_attr": overload or "default",
    }
    fallback = _fallbacks().get(qualified)
    code = _FALLBACK_TEMPLATE.format(**fields, **fallback) if fallback else _TEMPLATE.format(**fields)
    return {"module": MODULE, "function": fields["function"], "code": code}
