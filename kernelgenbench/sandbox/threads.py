"""Which threads the candidate left or started: OS threads (/proc/self/task), not only `threading.Thread`s.

The baseline is taken after the runtime is warmed up (device context, the CPU thread pool, the profiler's
own threads) and before the candidate is imported, so runtime threads are never the candidate's. A thread
that starts and ends while the candidate is imported is fine; one alive when a call starts or ends that
was not in the baseline, or one started during a call, is evidence. Starts are seen at every Python entry
(`threading.Thread.start`, `_thread.start_new_thread`, ...) while armed; threads started in C and gone by the
end of the call are the only ones missed.
"""

from __future__ import annotations

import _thread
import os
import threading
from typing import Any

# Python entry points that start an OS thread (3.11: start_new_thread; 3.13: start_joinable_thread too).
_STARTERS = ("start_new_thread", "start_new", "start_joinable_thread")


def os_threads() -> set[int]:
    """Native ids of the process's threads now."""
    try:
        return {int(t) for t in os.listdir("/proc/self/task")}
    except OSError:  # no procfs: Python's view is all there is
        return {t.native_id for t in threading.enumerate() if t.native_id is not None}


def describe(tid: int) -> str:
    """'<tid> <name>': the Python thread's name when it is one, else the OS name (comm)."""
    for t in threading.enumerate():
        if t.native_id == tid:
            return f"{tid} {t.name}"
    try:
        with open(f"/proc/self/task/{tid}/comm") as f:
            return f"{tid} {f.read().strip()}"
    except OSError:
        return f"{tid} (gone)"


def _target_name(target: Any) -> str:
    """A threading.Thread's name (its bootstrap method is what starts), else the function's."""
    owner = getattr(target, "__self__", None)
    if isinstance(owner, threading.Thread):
        return f"Thread {owner.name!r}"
    return f"{getattr(target, '__qualname__', target)!s:.80}"


class ThreadWatch:
    """The baseline of OS threads, and the threads started from Python while `armed`."""

    def __init__(self) -> None:
        self.baseline: frozenset[int] = frozenset()
        self.started: list[str] = []
        self.armed = False
        self._hooks: dict[tuple[Any, str], Any] = {}

    def take_baseline(self) -> None:
        """Every thread alive now is the runtime's (call after warming it up, before the import)."""
        self.baseline = frozenset(os_threads())

    def new(self) -> list[str]:
        """Threads alive now that were not in the baseline, described."""
        return [describe(t) for t in sorted(os_threads() - self.baseline)]

    def install(self) -> None:
        """Wrap the Python entry points that start threads (the module attribute and threading's copy)."""
        watch = self
        for owner in (_thread, threading):
            for attr in (*_STARTERS, *(f"_{n}" for n in _STARTERS)):
                orig = owner.__dict__.get(attr)
                if orig is None or getattr(orig, "__kgb_watched__", False):
                    continue

                def started(*a: Any, _orig: Any = orig, _label: str = f"{owner.__name__}.{attr}", **kw: Any) -> Any:
                    if watch.armed:
                        watch.started.append(f"{_label}({_target_name(a[0] if a else kw.get('function'))})")
                    return _orig(*a, **kw)

                started.__kgb_watched__ = True  # type: ignore[attr-defined]
                setattr(owner, attr, started)
                self._hooks[(owner, attr)] = started

    def broken(self) -> list[str]:
        """Marks for thread-start hooks the candidate removed or replaced."""
        return [f"{owner.__name__}.{attr} was replaced" for (owner, attr), hook in self._hooks.items()
                if owner.__dict__.get(attr) is not hook]

    def call_report(self, at_start: list[str]) -> dict[str, list[str]]:
        """The "threads" header of one call: new threads at its start and end, and those it started."""
        return {"at_start": at_start, "at_end": self.new(), "started": list(self.started)}
