"""Decide how an ATen task's outputs are compared (deterministic, random, uninitialized, view)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from torchgen.model import FunctionSchema

from kernelgenbench.extractors.aten.data_files import load, root_name


@functools.cache
def _rules() -> dict:
    d = load("semantics")
    return {
        "overrides": dict(d.get("overrides", {})),
        "random_tags": frozenset(d.get("random_tags", [])),
        "random_names": frozenset(d.get("random_names", [])),
        "uninitialized": tuple(re.compile(p) for p in d.get("uninitialized_patterns", [])),
        "view_tags": frozenset(d.get("view_tags", [])),
    }


def returns_alias(schema: FunctionSchema) -> bool:
    """A return aliases an argument without writing it: 'Tensor(a)' (torchgen's view ops)."""
    return any(r.annotation is not None and not r.annotation.is_write for r in schema.returns)


def semantics(name: str, schema: FunctionSchema, tags: Iterable[str]) -> str:
    """The record's `semantics` for op `name` with this schema and these upstream tags."""
    r = _rules()
    root = root_name(name)
    if root in r["overrides"]:
        return r["overrides"][root]
    tagset = set(tags)
    if tagset & r["random_tags"] or root in r["random_names"]:
        return "random"
    if any(p.search(root) for p in r["uninitialized"]):
        return "uninitialized"
    if returns_alias(schema) or tagset & r["view_tags"]:
        return "view"
    return "deterministic"
