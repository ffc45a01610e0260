"""STAND-IN for kernelgenbench/sandbox/activity.py (helper "device-evidence"), to drop when it lands.

One torch.profiler session around the candidate's call, reported under the contract's keys
header["profile"] = {"available", "reason", "cpu_ops", "cpu_ops_in_launch"}: aten ops at the C++ level on
all threads, split by whether they ran inside a Triton launch on the launching thread (the dispatch
recorder's launch hook marks each launch in the trace). Used by worker._run_call only when activity.py is
absent; delete this file and that branch then.
"""

from __future__ import annotations

import contextlib
import secrets
from collections import Counter
from collections.abc import Iterator
from typing import Any

import torch

LAUNCH = "kgb::triton_launch"  # + a secret per call: a range the candidate opens itself is no launch


@contextlib.contextmanager
def profiled_call(rec: Any) -> Iterator[dict[str, Any]]:
    """Profile the block; the report dict is filled when the block exits."""
    report: dict[str, Any] = {"available": False, "reason": "", "cpu_ops": {}, "cpu_ops_in_launch": {}}
    marks: list[Any] = []
    name = f"{LAUNCH}::{secrets.token_hex(8)}"

    def on_pause(start: bool) -> None:  # _RecordFunctionFast dispatches no op the recorder would see
        if start:
            marks.append(torch._C._profiler._RecordFunctionFast(name))
            marks[-1].__enter__()
        elif marks:
            marks.pop().__exit__(None, None, None)

    prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], experimental_config=_config())
    rec.on_pause = on_pause
    prof.__enter__()
    try:
        yield report
    finally:
        prof.__exit__(None, None, None)
        rec.on_pause = None
        report.update(_split(prof.events(), name), available=True)


def _config() -> Any:
    """All threads, with overload names, where this torch knows those options (older ones: the calling thread)."""
    make = torch._C._profiler._ExperimentalConfig
    for kwargs in ({"profile_all_threads": True, "capture_overload_names": True}, {"profile_all_threads": True}, {}):
        try:
            return make(**kwargs)
        except TypeError:
            continue
    return None


def _split(events: Any, launch: str) -> dict[str, dict[str, int]]:
    launches = [(e.thread, e.time_range.start, e.time_range.end) for e in events if e.name == launch]
    outside: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    for e in events:
        if not e.name.startswith("aten::"):
            continue
        t = e.time_range.start
        hit = any(th == e.thread and s <= t <= end for th, s, end in launches)
        overload = getattr(e, "overload_name", "")
        (inside if hit else outside)[f"{e.name}.{overload}" if overload else e.name] += 1
    return {"cpu_ops": dict(outside), "cpu_ops_in_launch": dict(inside)}
