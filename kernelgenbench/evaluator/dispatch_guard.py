"""Record the ATen ops dispatched while the candidate runs, and tell compute from bookkeeping.

The allowlist (kernelgenbench/data/eval_dispatch_allowlist.yaml) names allocation, metadata and copy
ops; every op that returns a view is allowed too. Ops dispatched inside a Triton launch (the interpreter
copies arguments to the host and back with aten ops) are counted apart and never held against the
candidate.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml
from torch.utils._python_dispatch import TorchDispatchMode


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


class DispatchRecorder(TorchDispatchMode):
    """A dispatch mode counting every aten op by overload name; `paused` > 0 inside Triton launches."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: Counter[str] = Counter()
        self.views: set[str] = set()
        self.in_launch: Counter[str] = Counter()
        self.paused = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Mapping | None = None) -> Any:
        name = str(func.name())  # 'aten::add.Tensor'
        if self.paused:
            self.in_launch[name] += 1
        else:
            self.ops[name] += 1
            if getattr(func, "is_view", False):
                self.views.add(name)
        return func(*args, **(kwargs or {}))


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
