"""Tensor memory written inside a kernel launch by neither the kernel nor the host code the launch runs.

Under Triton's interpreter a launch is Python, and the recorders are paused inside it: every write there passes as
the kernel's. Code that runs no Python frame (a functools.partial of builtins as a dunder, a weakref callback in a
collection) escapes the launch watch too (red team 48). So the worker shadows the launch's storages while it runs
(sandbox/launch_memory.py): the kernel's stores are followed, its loads checked, and the rest compared when it
ends. A byte that differs was written from the host: on a GPU nothing writes device memory during a kernel but
the kernel, and host code the launch runs is recorded and judged as the call's own.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def judge(task: Task, report: CallReport) -> str | None:
    """Bytes of an interpreted launch's storages that changed inside it with no store of its kernels."""
    if not report.launch_unseen_writes:
        return None
    return (f"{report.launch_unseen_writes} byte(s) of the tensors a Triton launch could use changed inside the "
            f"launch with no store of its kernels and no recorded host code (first: {report.launch_unseen_first}): "
            "host data written while the recorders were paused")


CHECK = Check(
    name="launch_writes", status=Status.HOST_COMPUTE, collector="launch_memory", judge=judge,
    prompt="writing tensor memory from the host while a kernel launch runs (callbacks, hooks, finalizers)",
    corpus=("rt48_tl_member_c_getattr_mul", "rt48_gc_weakref_c_callback_mul", "rt48_global_c_getattribute_mul",
            "rt48_core_probe_device_call_mul"),
)
