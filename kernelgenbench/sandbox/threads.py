"""Which threads the candidate left or started: OS threads (/proc/self/task), not only `threading.Thread`s.

The baseline is taken after the runtime is warmed up (device context, the CPU thread pool, the profiler's
own threads) and before the candidate is imported, so runtime threads are never the candidate's. A thread
that starts and ends while the candidate is imported is fine; one alive when a call starts or ends that
was not in the baseline, or one started during a call, is evidence. Starts are seen at every Python entry
(`threading.Thread.start`, `_thread.start_new_thread`, ...) while armed; threads started in C and gone by the
end of the call are the only ones missed. For each thread outside the baseline the report says whether it
runs Python, its state, and the CPU time it used during the call and in a short window after it, so the
evaluator can tell a library's idle pool (started in C by a lazy import, asleep) from a thread that works.
"""

from __future__ import annotations

import _thread
import os
import sys
import threading
import time
from typing import Any

_native_id = threading.get_native_id
SETTLE_S = 0.02  # how long to watch new threads after a call for CPU use (only when there are any)
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

# Python entry points that start an OS thread (3.11: start_new_thread; 3.13: start_joinable_thread too).
_STARTERS = ("start_new_thread", "start_new", "start_joinable_thread")


def os_threads() -> set[int]:
    """Native ids of the process's threads now."""
    try:
        return {int(t) for t in os.listdir("/proc/self/task")}
    except OSError:  # no procfs: Python's view is all there is
        return {t.native_id for t in threading.enumerate() if t.native_id is not None}


def cpu_and_state(tid: int) -> tuple[float, str]:
    """CPU seconds used so far and the /proc state letter of one thread ((0, '-') when gone)."""
    try:
        with open(f"/proc/self/task/{tid}/stat") as f:
            raw = f.read()
    except OSError:
        return 0.0, "-"
    rest = raw[raw.rindex(")") + 2:].split()
    return (int(rest[11]) + int(rest[12])) / _TICK, rest[0]


def python_threads(known: set[int]) -> tuple[set[int], int]:
    """Native ids of the threads known to run Python (started through Python's entry points, or in threading's
    view), and how many more threads hold a Python thread state than those (threads started in C that called
    into Python: the runtime has some; more than the baseline's, and no unknown thread can be told apart)."""
    alive = os_threads()
    ids = ({t.native_id for t in threading.enumerate() if t.native_id is not None} | known) & alive
    return ids, len(sys._current_frames()) - len(ids)


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
        self.python_tids: set[int] = set()  # native ids of threads started through Python's entry points
        self._excess = 0  # Python thread states threading does not know of, in the baseline
        self._hooks: dict[tuple[Any, str], Any] = {}

    def take_baseline(self) -> None:
        """Every thread alive now is the runtime's (call after warming it up, before the import)."""
        self.baseline = frozenset(os_threads())
        self._excess = python_threads(self.python_tids)[1]

    def install(self) -> None:
        """Wrap the Python entry points that start threads (the module attribute and threading's copy)."""
        watch = self
        for owner in (_thread, threading):
            for attr in (*_STARTERS, *(f"_{n}" for n in _STARTERS)):
                orig = owner.__dict__.get(attr)
                if orig is None or getattr(orig, "__kgb_watched__", False):
                    continue

                def started(*a: Any, _orig: Any = orig, _label: str = f"{owner.__name__}.{attr}", **kw: Any) -> Any:
                    fn = a[0] if a else kw.get("function")
                    if watch.armed:
                        watch.started.append(f"{_label}({_target_name(fn)})")

                    def run(*fa: Any, **fk: Any) -> Any:
                        watch.python_tids.add(_native_id())  # this thread runs Python, whatever threading knows
                        return fn(*fa, **fk)

                    if a:
                        a = (run, *a[1:])
                    else:
                        kw["function"] = run
                    return _orig(*a, **kw)

                started.__kgb_watched__ = True  # type: ignore[attr-defined]
                setattr(owner, attr, started)
                self._hooks[(owner, attr)] = started

    def broken(self) -> list[str]:
        """Marks for thread-start hooks the candidate removed or replaced."""
        return [f"{owner.__name__}.{attr} was replaced" for (owner, attr), hook in self._hooks.items()
                if owner.__dict__.get(attr) is not hook]

    def begin(self) -> dict[int, float]:
        """At a call's start: the CPU time so far of each thread outside the baseline."""
        return {t: cpu_and_state(t)[0] for t in sorted(os_threads() - self.baseline)}

    def call_report(self, start: dict[int, float]) -> dict[str, Any]:
        """The "threads" part of one call's report: what each thread outside the baseline at its start and
        end did (CPU during the call, state, CPU in a short window after), and the threads it started."""
        end_tids = sorted(os_threads() - self.baseline)
        end = {t: cpu_and_state(t) for t in set(end_tids) | set(start)}
        if end_tids:
            time.sleep(SETTLE_S)
        settle = {t: cpu_and_state(t)[0] for t in end}
        py, excess = python_threads(self.python_tids)
        unknown_python = excess > self._excess

        def seen(t: int) -> dict[str, Any]:
            cpu, state = end[t]
            used = max(0.0, cpu - start.get(t, 0.0)) if state != "-" else 0.0
            return {"name": describe(t), "python": t in py or unknown_python, "state": state, "call_cpu_s": used,
                    "settle_cpu_s": max(0.0, settle[t] - cpu) if state != "-" else 0.0}

        return {"at_start": [seen(t) for t in sorted(start)], "at_end": [seen(t) for t in end_tids],
                "started": list(self.started)}
