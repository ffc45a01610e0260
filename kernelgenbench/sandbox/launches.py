"""Count Triton kernel launches during a call, compiled or interpreted.

Both `JITFunction.run` (compiled kernels; what `kernel[grid](...)` and the autotuner call) and, under
TRITON_INTERPRET=1, `InterpretedFunction.run` are wrapped for the duration of a `with` block. The
signature `run(self, *args, grid, warmup, **kwargs)` is the same in triton 3.6 and 3.9; warm-up calls
(compilation without a launch) are not counted.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any


def _kernel_classes() -> list[type]:
    from triton.runtime.jit import JITFunction

    classes: list[type] = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # a triton build without the interpreter
        return classes
    classes.append(InterpretedFunction)
    return classes


def _compiled(kernel: Any) -> int:
    """How many compiled variants a JIT function holds in memory (0 for interpreted ones)."""
    caches = getattr(kernel, "device_caches", None)
    if not isinstance(caches, dict):
        return 0
    return sum(len(c[0]) for c in caches.values() if isinstance(c, tuple) and c and isinstance(c[0], dict))


class LaunchCounter:
    """Launch counts by kernel name; `recorder.paused` is raised during each launch when a recorder is given.

    `compile_s` sums the wall time of launches that first compiled (or loaded from Triton's disk cache)
    a variant of their kernel: the candidate's compile cost, apart from the evaluator's own.
    """

    def __init__(self, recorder: Any = None) -> None:
        self.launches: Counter[str] = Counter()
        self.recorder = recorder
        self.compile_s = 0.0

    @property
    def total(self) -> int:
        """Launches counted so far."""
        return sum(self.launches.values())

    @contextlib.contextmanager
    def active(self) -> Iterator[LaunchCounter]:
        """Count launches inside the block; the original `run` methods are restored on exit."""
        originals = [(cls, cls.__dict__["run"]) for cls in _kernel_classes() if "run" in cls.__dict__]
        for cls, run in originals:
            cls.run = self._wrap(run)
        try:
            yield self
        finally:
            for cls, run in originals:
                cls.run = run

    def _wrap(self, run: Any) -> Any:
        counter = self

        def counted_run(kernel: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
            if warmup:
                return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            name = getattr(getattr(kernel, "fn", None), "__name__", None) or getattr(kernel, "__name__", "kernel")
            counter.launches[str(name)] += 1
            rec = counter.recorder
            if rec is not None:
                rec.paused += 1
            before, t0 = _compiled(kernel), time.perf_counter()
            try:
                return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                if _compiled(kernel) > before:
                    counter.compile_s += time.perf_counter() - t0
                if rec is not None:
                    rec.paused -= 1

        counted_run.__wrapped__ = run  # type: ignore[attr-defined]
        return counted_run
