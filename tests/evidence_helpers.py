"""Run one candidate in a real worker on given inputs and judge each call's evidence (no outputs compared)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from eval_helpers import EXAMPLE_TASKS

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.judge import judge_evidence
from kernelgenbench.evaluator.status import Verdict
from kernelgenbench.evaluator.supervisor import Reply, Worker
from kernelgenbench.sandbox.protocol import CallReport, Leaf, Profile

# A profile from a process where the profiler never worked: nothing in it is evidence either way.
NO_PROFILE = Profile(available=False, reason="not profiled", expected=False, device="cpu")
PLAIN_CPU = Leaf(type="torch.Tensor", plain=True, device="cpu", layout="torch.strided", storage=True)

# A Triton add in the examples' style; candidates below build on it.
ADD_KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def _launch(x, y, out):
    _add_kernel[(triton.cdiv(out.numel(), 1024),)](x, y, out, out.numel(), BLOCK=1024)
'''


def call_report(**fields: Any) -> CallReport:
    """A clean "result" report of one Triton launch and nothing else, but for `fields`; its `structure` is a
    flat return of its leaves unless given."""
    leaves = tuple(fields.pop("leaves", ()))
    flat = "*" if len(leaves) == 1 else "[" + ",".join("*" * len(leaves)) + "]"
    base: dict[str, Any] = {"event": "result", "tampering": (), "launches": {"k": 1}, "launch_ranges": 1, "ops": {},
                            "ops_in_launch": {}, "profile": NO_PROFILE, "leaves": leaves,
                            "structure": flat if leaves else ""}
    return CallReport(**{**base, **fields})


def example_task(task_id: str = "aten/add.Tensor") -> Task:
    """One task of examples/tasks.jsonl."""
    for line in EXAMPLE_TASKS.read_text().splitlines():
        row = json.loads(line)
        if row["id"] == task_id:
            return Task.from_dict(row)
    raise KeyError(task_id)


def serve(tmp_path: Path, code: str, calls: Iterable[dict[str, Any]], *, device: str = "cpu",
          task: Task | None = None) -> tuple[Reply, list[tuple[Reply, Verdict]]]:
    """The worker's ready reply, then each call's reply with its evidence verdict (none after a bad import)."""
    task = task or example_task()
    path = tmp_path / "candidate.py"
    path.write_text(code)
    home = tmp_path / "home"  # its own folder, as the evaluator gives it: under /tmp, the only writable one there
    home.mkdir(mode=0o700, exist_ok=True)
    setup = {"code_path": str(path), "log_path": str(tmp_path / "candidate.log"), "entry_point": task.entry_point,
             "device": device, "record": task.to_dict(), "memory_cap_bytes": 0, "device_memory_fraction": 0.5,
             "isolation": {"workdir": str(home)}}
    worker = Worker(setup)
    try:
        ready = worker.receive(120)
        if ready.kind != "ready" or ready.message.tampering:
            return ready, []
        out = []
        for args in calls:
            reply = worker.call(args, 120)
            out.append((reply, judge_evidence(task, reply.report)))
        return ready, out
    finally:
        worker.kill()
