"""Record the ATen ops dispatched while the candidate runs (inside its worker).

Ops dispatched inside a Triton launch (the interpreter copies arguments to the host and back with aten
ops) are counted apart; the evaluator never holds them against the candidate
(`kernelgenbench.evaluator.dispatch_guard` decides what counts as compute).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from torch.utils._python_dispatch import TorchDispatchMode


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
