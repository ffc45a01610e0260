"""How an evaluation run is configured: devices, rounds, seeds, isolation limits, timing, workers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass(frozen=True)
class EvalConfig:
    """How to evaluate: device, rounds, seeds, isolation limits and timing."""

    device: str = "auto"
    rounds: int = 3  # fresh-input rounds of every correctness workload
    performance_rounds: int = 1  # checked rounds of a performance workload before it is timed
    # None: a fresh base seed drawn for each run (recorded in every result row; pass it back to reproduce).
    # A fixed public default would let a candidate precompute every round's inputs and answers at import.
    seed: int | None = None
    import_timeout_s: float = 180.0
    call_timeout_s: float = 120.0
    # Waiting while a worker compiles Triton kernels (new entries in its own cache) is credited back to the
    # call's limit, up to this much per candidate: autotuners compile hundreds of configurations on first use.
    compile_allowance_s: float = 900.0
    timing_timeout_s: float = 600.0
    memory_cap_bytes: int = 8 << 30  # host address space per worker on CPU
    device_memory_fraction: float | None = None  # per worker on an accelerator; default 0.9 / workers
    # 0: automatic, as in evaluate() and `kgb eval` (two per device on accelerators, capped by the CPU count;
    # one on CPU)
    workers: int = 0
    start_method: str = "forkserver"
    time_performance: bool = True
    timing: dict[str, Any] = field(default_factory=dict)  # TimingConfig overrides (candidate and baselines alike)
    compile_baseline: bool = False  # also time torch.compile of the reference
    # Run as root, worker slot i runs its candidates as uid/gid worker_uid_base + i (see sandbox/isolation.py).
    worker_uid_base: int = 64100
    hidden_paths: tuple[str, ...] = ()  # covered in every worker's mount namespace (the dataset's files)


def on_cpu(device: str) -> bool:
    """Whether `device` ('cpu', 'cuda:1', ...) is the host: Triton's interpreter, correctness only."""
    return torch.device(device).type == "cpu"


def auto_workers(devices: Sequence[str]) -> int:
    """Workers when none are asked for: on accelerators two per device (one compiles and checks while the
    other's candidate is timed), capped by the CPU count but never below one per device; one on CPU."""
    if all(on_cpu(d) for d in devices):
        return 1
    return max(len(devices), min(2 * len(devices), os.cpu_count() or 1))
