"""Assign an ATen op its category from its name and tags, by the rules in data/aten_categories.yaml."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from kernelgenbench.extractors.aten.data_files import load, root_name


@functools.cache
def _rules() -> tuple[dict[str, str], tuple[tuple[re.Pattern[str], str], ...], tuple[tuple[str, str], ...], str]:
    d = load("categories")
    patterns = tuple((re.compile(p), c) for p, c in d.get("patterns", []))
    return dict(d.get("names", {})), patterns, tuple((t, c) for t, c in d.get("tags", [])), d["default"]


def category(name: str, tags: Iterable[str]) -> str:
    """The category of op `name` (without overload) carrying upstream `tags`."""
    names, patterns, tag_rules, default = _rules()
    root = root_name(name)
    candidates = [root] + ([root.removesuffix("_backward")] if root.endswith("_backward") else [])
    for n in candidates:
        if n in names:
            return names[n]
    for n in candidates:
        for pat, cat in patterns:
            if pat.search(n):
                return cat
    tagset = set(tags)
    for tag, cat in tag_rules:
        if tag in tagset:
            return cat
    return default
