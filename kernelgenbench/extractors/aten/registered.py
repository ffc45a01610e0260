"""Cross-check parsed schemas against the ones the installed torch registers."""

from __future__ import annotations

from collections.abc import Mapping


def registered_schemas() -> dict[str, str]:
    """Registered aten schema text by 'name.overload' (no namespace), from torch._C._jit_get_all_schemas()."""
    import torch

    out: dict[str, str] = {}
    for s in torch._C._jit_get_all_schemas():
        if not s.name.startswith("aten::"):
            continue
        key = s.name[len("aten::"):] + (f".{s.overload_name}" if s.overload_name else "")
        out[key] = str(s)[len("aten::"):]
    return out


def check(qualified_name: str, schema_text: str, registered: Mapping[str, str]) -> str | None:
    """None when the installed torch registers the same schema as `schema_text`, else what differs.

    The registry prints defaults normalized (`Mean` as `1`, `int[1] dim=0` as `[0]`), so the yaml text is
    put through the same parser first: only real differences (types, names, aliasing) are reported.
    """
    import torch

    text = registered.get(qualified_name)
    if text is None:
        return "not registered by the installed torch"
    try:
        normalized = str(torch._C.parse_schema(f"aten::{schema_text}"))[len("aten::"):]
    except RuntimeError as exc:
        return f"the installed torch cannot parse this schema: {str(exc).splitlines()[0]}"
    return None if normalized == text else f"registered as: {text}"
