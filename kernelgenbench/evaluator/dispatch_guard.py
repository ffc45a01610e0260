"""Tell torch compute from bookkeeping among the ATen ops a candidate's worker recorded.

The allowlist (kernelgenbench/data/eval_dispatch_allowlist.yaml) names allocation, metadata and copy
ops; every op that returns a view is allowed too. Ops dispatched inside a Triton launch (the interpreter
copies arguments to the host and back with aten ops) are counted apart and never held against the
candidate.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources

import yaml


@dataclass(frozen=True)
class Allowlist:
    """Op packet names allowed per class."""

    allocation: frozenset[str]
    metadata: frozenset[str]
    copy: frozenset[str]
    copy_categories: frozenset[str]


@functools.cache
def allowlist() -> Allowlist:
    """The allowlist from kernelgenbench/data/eval_dispatch_allowlist.yaml."""
    data = yaml.safe_load((resources.files("kernelgenbench.data") / "eval_dispatch_allowlist.yaml").read_text())
    return Allowlist(*(frozenset(data[k]) for k in ("allocation", "metadata", "copy", "copy_categories")))


def _packet(op: str) -> str:
    return op.split("::", 1)[-1].split(".", 1)[0]


def compute_ops(ops: Iterable[str], views: Iterable[str], *, category: str) -> list[str]:
    """The ops among `ops` that count as torch compute for a task of this category, in order seen."""
    allow = allowlist()
    ok = set(allow.allocation) | set(allow.metadata)
    if category not in allow.copy_categories:
        ok |= allow.copy
    view_set = set(views)
    return [op for op in ops if op not in view_set and _packet(op) not in ok]
