"""Static checks of a candidate's source: forbidden imports and calls, found in its syntax tree.

The lists live in kernelgenbench/data/eval_forbidden.yaml. Aliases are followed (`import subprocess as
sp; sp.run` and `from torch import ops; ops.aten.mm` are both caught).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from kernelgenbench.evaluator.status import PASS, Status, Verdict


@dataclass(frozen=True)
class Forbidden:
    """The forbidden-API lists."""

    modules: dict[str, str]
    calls: dict[str, str]
    methods: dict[str, str]
    native_libraries: tuple[str, ...]


@functools.cache
def forbidden() -> Forbidden:
    """The lists from kernelgenbench/data/eval_forbidden.yaml."""
    data: dict[str, Any] = yaml.safe_load((resources.files("kernelgenbench.data") / "eval_forbidden.yaml").read_text())
    return Forbidden(dict(data["modules"]), dict(data["calls"]), dict(data["methods"]), tuple(data["native_libraries"]))


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _under(name: str, table: dict[str, str]) -> str | None:
    for key in table:
        if name == key or name.startswith(key + "."):
            return key
    return None


def check_source(code: str, filename: str = "<candidate>") -> Verdict:
    """PASS, or FORBIDDEN_API with the first offending line; a syntax error is COMPILE_ERROR."""
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as exc:
        return Verdict(Status.COMPILE_ERROR, f"{filename}:{exc.lineno}: SyntaxError: {exc.msg}")
    fb = forbidden()
    aliases: dict[str, str] = {}
    uses_ctypes = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[(a.asname or a.name).split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                hit = _under(a.name, fb.modules)
                if hit:
                    return Verdict(Status.FORBIDDEN_API, f"{filename}:{node.lineno}: import {a.name}: {fb.modules[hit]}")
                uses_ctypes |= a.name.split(".")[0] == "ctypes"
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                aliases[a.asname or a.name] = full
                hit = _under(node.module, fb.modules) or _under(full, fb.modules) or _under(full, fb.calls)
                if hit:
                    why = fb.modules.get(hit) or fb.calls[hit]
                    return Verdict(Status.FORBIDDEN_API, f"{filename}:{node.lineno}: from {node.module} import {a.name}: {why}")
            uses_ctypes |= node.module.split(".")[0] == "ctypes"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            name = _dotted(node, aliases)
            if name:
                hit = _under(name, fb.calls)
                if hit and (isinstance(node, ast.Attribute) or name in fb.calls):
                    return Verdict(Status.FORBIDDEN_API, f"{filename}:{node.lineno}: {name}: {fb.calls[hit]}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in fb.methods:
            return Verdict(Status.FORBIDDEN_API,
                           f"{filename}:{node.lineno}: .{node.func.attr}(): {fb.methods[node.func.attr]}")
        if uses_ctypes and isinstance(node, ast.Constant) and isinstance(node.value, str):
            low = node.value.lower()
            lib = next((lib for lib in fb.native_libraries if lib.lower() in low), None)
            if lib:
                return Verdict(Status.FORBIDDEN_API,
                               f"{filename}:{node.lineno}: ctypes with {node.value!r}: native library {lib} instead of a Triton kernel")
    return PASS
