"""A reference module's text made self-contained for a record: its imports of shared helpers replaced by them.

Reference modules import what they share from `kernelgenbench.reference_impls.shared` (one copy in the source
tree); a record cannot import kernelgenbench, so the text an extractor embeds has each such import line
replaced by the imported definitions' source, in the order the line names them.
"""

from __future__ import annotations

import ast
import functools
from importlib import resources

SHARED = "kernelgenbench.reference_impls.shared"


@functools.cache
def _definitions() -> dict[str, str]:
    """Source of each top-level function and assignment in the shared module, by name."""
    text = resources.files("kernelgenbench.reference_impls").joinpath("shared.py").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = ast.get_source_segment(text, node) or ""
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.get_source_segment(text, node) or ""
    return out


def self_contained(text: str) -> str:
    """`text` with every `from kernelgenbench.reference_impls.shared import a, b` line replaced by a's and b's
    definitions; an unknown name is a KeyError naming it (a shared helper that does not exist)."""
    lines = text.splitlines(keepends=True)
    for node in reversed(ast.parse(text).body):
        if isinstance(node, ast.ImportFrom) and node.module == SHARED:
            defs = _definitions()
            missing = [a.name for a in node.names if a.name not in defs]
            if missing:
                raise KeyError(f"{SHARED} defines no {', '.join(missing)}")
            body = "\n\n".join(defs[a.name] for a in node.names)
            lines[node.lineno - 1:node.end_lineno] = ["\n", body, "\n\n"]
    return "".join(lines)
