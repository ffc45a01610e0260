"""The shared state of one run: devices and their locks, platforms, the writer, worker uids, references."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator import platform as platform_mod
from kernelgenbench.evaluator.config import EvalConfig
from kernelgenbench.evaluator.devices import DevicePool
from kernelgenbench.evaluator.inputs import load_code
from kernelgenbench.evaluator.results import ResultsWriter
from kernelgenbench.sandbox import isolation

CPU_TIMING = {"available": False, "reason": "no accelerator: correctness only (Triton interpreter)"}


INTERPRETER_CAVEATS = (
    "Triton's interpreter computes bf16 arithmetic wrongly: a kernel that computes in bf16 (instead of "
    "loading bf16 and converting to fp32) can fail here and pass on a GPU",
    "autotune with several configs does not run in the interpreter: use one fixed config on CPU",
    "performance workloads are not run on CPU",
)


def _platform_row(device: str) -> dict[str, Any]:
    info = platform_mod.detect(device).to_dict()
    info["precision"] = {"reference_tf32": False}
    if info["interpreter"]:
        info["caveats"] = list(INTERPRETER_CAVEATS)
    return info


class RunContext:
    """Shared state of one run: config, devices and their locks, platforms, writer, reference cache."""

    def __init__(self, config: EvalConfig, devices: Sequence[str], writer: ResultsWriter, workdir: Path) -> None:
        self.config = config
        self.pool = DevicePool(devices)
        self.writer = writer
        self.workdir = workdir
        self.platforms = {d: _platform_row(d) for d in self.pool.devices}
        self._refs: dict[str, Any] = {}
        self._ref_lock = threading.Lock()
        os.chmod(workdir, 0o711)  # workers may reach their own folder inside, not list the others
        self.hidden = _coverable([*config.hidden_paths, *([writer.path] if writer.path else [])], workdir)
        self._uids, self.reveal = _worker_uids(config)
        self._uid_lock = threading.Lock()

    @contextlib.contextmanager
    def worker_uid(self) -> Iterator[int | None]:
        """A worker slot's uid for one candidate (None: workers keep the evaluator's uid)."""
        if not self._uids:
            yield None
            return
        with self._uid_lock:
            uid = self._uids.pop()
        try:
            yield uid
        finally:
            with self._uid_lock:
                self._uids.append(uid)

    def memory_fraction(self) -> float:
        """Each worker's share of its device's memory: the device is shared by the workers placed on it."""
        if self.config.device_memory_fraction:
            return self.config.device_memory_fraction
        per_device = -(-max(1, self.config.workers) // len(self.pool.devices))
        return 0.9 / per_device

    def reference(self, task: Task) -> Any:
        """The task's reference function, loaded once per run."""
        with self._ref_lock:
            if task.id not in self._refs:
                self._refs[task.id] = load_code(task.reference)  # type: ignore[arg-type]
            return self._refs[task.id]


def _coverable(paths: Sequence[str | Path], workdir: Path) -> list[str]:
    """The paths a worker's mount namespace may cover: none that holds the run's folder or the code workers run."""
    import kernelgenbench

    needed = [os.path.realpath(p) for p in (workdir, sys.prefix, os.path.dirname(kernelgenbench.__file__))]
    out = []
    for p in map(os.path.realpath, map(str, paths)):
        if not any(n == p or n.startswith(p.rstrip("/") + "/") for n in needed):
            out.append(p)
    return out


def _worker_uids(config: EvalConfig) -> tuple[list[int], list[str]]:
    """As root, one uid per worker slot, and the code folders to open to them (see isolation.to_reveal)."""
    if os.geteuid() != 0:
        return [], []
    import triton

    import kernelgenbench

    code = [sys.prefix, sys.base_prefix, os.path.dirname(torch.__file__), os.path.dirname(triton.__file__),
            os.path.dirname(kernelgenbench.__file__)]
    reveal = isolation.to_reveal(code)
    if reveal is None:
        return [], []  # workers keep uid 0 without capabilities (level pidns+nocaps)
    return [config.worker_uid_base + i for i in reversed(range(max(1, config.workers)))], reveal
