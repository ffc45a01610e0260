"""Baseline timings per workload: the eager reference, the native library, and optionally torch.compile.

Baselines do not depend on the candidate, so they are measured once per (task content, workload, device,
software versions, timing config) and cached on disk: an RL loop scoring many samples pays for them once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import torch

from kernelgenbench import sources
from kernelgenbench.dataset.record import Task, Workload
from kernelgenbench.evaluator.ceilings import cache_dir
from kernelgenbench.evaluator.inputs import load_code, make_args, split_call_args
from kernelgenbench.evaluator.precision import precision_policy
from kernelgenbench.evaluator.timing import Timing, TimingConfig, time_callable, unavailable


def native_callable(task: Task) -> tuple[Callable[..., Any] | None, str]:
    """The native implementation of a task (callable with the candidate's arguments), or None and why."""
    source = sources.get(task.source)
    if source.native is None:
        return None, f"the {source.title} source declares no native baseline"
    return sources.resolve(source.native)(task)


def _cache_key(task: Task, workload: Workload, device: torch.device, config: TimingConfig, seed: int,
               compile_ref: bool) -> str:
    name = getattr(torch, device.type).get_device_name(device)
    blob = json.dumps([task.content_hash, workload.id, name, torch.__version__, asdict(config), seed, compile_ref])
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _time(fn: Callable[..., Any], task: Task, workload: Workload, device: torch.device, seed: int,
          config: TimingConfig, policy: dict[str, Any]) -> Timing:
    def arg_set(i: int) -> tuple[list[Any], dict[str, Any]]:
        return split_call_args(task, make_args(task, workload, seed=seed + 1000 + i, device=device))

    try:
        return time_callable(fn, arg_set, device=device, config=config, precision=policy)
    except Exception as exc:  # noqa: BLE001 - a baseline that fails is reported, the candidate still scored
        return unavailable(f"baseline failed: {type(exc).__name__}: {exc}"[:300])


def time_baselines(task: Task, workload: Workload, *, device: str | torch.device, seed: int = 0,
                   config: TimingConfig = TimingConfig(), compile_ref: bool = False,
                   use_cache: bool = True) -> dict[str, Any]:
    """{'reference': Timing dict, 'native': Timing dict, 'compile': Timing dict?} for one workload."""
    dev = torch.device(device)
    if dev.type == "cpu":
        none = unavailable("no accelerator: correctness only").to_dict()
        return {"reference": none, "native": none}
    path = cache_dir() / "baselines" / f"{_cache_key(task, workload, dev, config, seed, compile_ref)}.json"
    if use_cache and path.exists():
        return json.loads(path.read_text())
    out: dict[str, Any] = {}
    with precision_policy(allow_tf32=False) as policy:
        ref = load_code(task.reference) if task.reference else None
        out["reference"] = (_time(ref, task, workload, dev, seed, config, policy) if ref
                            else unavailable("the task has no reference")).to_dict()
        native, why = native_callable(task)
        if sources.get(task.source).native_is_reference:
            out["native"] = dict(out["reference"], note=f"the {sources.get(task.source).title} reference is the "
                                                        "native op itself")
        else:
            out["native"] = (_time(native, task, workload, dev, seed, config, policy) if native
                             else unavailable(why)).to_dict()
        if compile_ref and ref is not None:
            out["compile"] = _time(torch.compile(ref), task, workload, dev, seed, config, policy).to_dict()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out
