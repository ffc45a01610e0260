"""References of ATen tasks: the ATen op itself, called with the candidate's arguments.

An ATen task's reference is `torch.ops.aten.<name>.<overload>`, which runs on whatever device its inputs
are on. `reference_code` writes the small self-contained module a record embeds; `reference_source` is
its template, kept here as text so that the record's code never imports kernelgenbench.
"""

from __future__ import annotations

import keyword
from typing import Any

MODULE = "kernelgenbench.reference_impls.aten"

_TEMPLATE = '''"""Reference for aten::{qualified}: the ATen op itself, on the device of its inputs."""

import torch


def {function}(*args, **kwargs):
    """{schema}"""
    return getattr(getattr(torch.ops.aten, "{name}"), "{overload_attr}")(*args, **kwargs)
'''


def entry_point(name: str, overload: str) -> str:
    """The function a candidate defines: 'add.Tensor' -> 'add_Tensor', 'add_.Tensor' -> 'add__Tensor'."""
    ep = f"{name}_{overload}" if overload else name
    return f"{ep}_" if keyword.iskeyword(ep) else ep


def reference_code(name: str, overload: str, schema_text: str) -> dict[str, Any]:
    """The record's `reference`: module, function and the module's full source."""
    function = entry_point(name, overload)
    code = _TEMPLATE.format(
        qualified=f"{name}.{overload}" if overload else name,
        function=function,
        schema=schema_text.replace("\\", "\\\\").replace('"""', "'''"),
        name=name,
        overload_attr=overload or "default",
    )
    return {"module": MODULE, "function": function, "code": code}
