"""Fold per-model recordings into the trace summary: per overload, calls, models and the top shapes."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from kernelgenbench.trace.data import FORMAT, PHASES
from kernelgenbench.trace.models import ModelSpec
from kernelgenbench.trace.recorder import Recording

# Shapes kept per overload: the most called overall, and the most called among those that move at least
# BIG_BYTES (the ones a performance workload can use; smaller ones time launch overhead only).
TOP_ALL = 6
TOP_BIG = 8
BIG_BYTES = 1 << 20

NOTE = ("One step per architecture, built from configurations at their published sizes with all layers, on "
        "the meta device (no weights, no memory): counts are exact per step. Phases: 'data' the host-side batch "
        "preparation (real CPU tensors), 'train' forward, loss and backward, 'optimizer' gradient clipping and "
        "one per-tensor AdamW step, 'generate' a sampled token after a prompt and one decode step. "
        "bfloat16 parameters, eager attention. 'dispatch' overloads were seen by a TorchDispatchMode "
        "below autograd; 'function' overloads are CompositeImplicitAutograd ops seen at the torch level. "
        "'bytes' is the logical size of a call's tensor arguments and results. Shapes listed: the "
        f"{TOP_ALL} most called, plus the {TOP_BIG} most called of at least {BIG_BYTES} bytes.")


def _task_name(overload: str) -> str:
    """'mm.default' -> 'mm' (the task id form); others unchanged."""
    return overload.removesuffix(".default")


def summarize(traced: Sequence[tuple[ModelSpec, Recording]], *, torch_version: str,
              transformers_version: str) -> dict[str, Any]:
    """The summary dict (see data.SCHEMA) of several models' recordings."""
    calls: dict[tuple[str, str], dict[str, Any]] = defaultdict(lambda: {"calls": 0, "models": {}, "phases": set()})
    level: dict[str, str] = {}
    for spec, rec in traced:
        for (op, lvl, args), n in rec.calls.items():
            name = _task_name(op)
            level[name] = lvl
            entry = calls[(name, args)]
            entry["calls"] += n
            entry["models"][spec.name] = entry["models"].get(spec.name, 0) + n
            entry["phases"].update(rec.phases[(op, lvl, args)])
            entry["bytes"] = rec.nbytes[(op, lvl, args)]
    by_op: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (name, args), entry in calls.items():
        by_op[name].append({"calls": entry["calls"], "bytes": entry["bytes"], "models": sorted(entry["models"]),
                            "phases": _ordered(entry["phases"]), "args": json.loads(args), "_key": args})
    ops = {name: _op_entry(level[name], shapes) for name, shapes in by_op.items()}
    models = [{"name": s.name, "family": s.family, "batch": s.batch, "calls": sum(r.calls.values()),
               "phases": _phase_calls(r)} for s, r in traced]
    return {"format": FORMAT, "torch": torch_version, "transformers": transformers_version, "note": NOTE,
            "models": models, "ops": ops}


def _ordered(phases: set[str]) -> list[str]:
    """Phases in step order (data, train, optimizer, generate)."""
    return sorted(phases, key=PHASES.index)


def _phase_calls(rec: Recording) -> dict[str, int]:
    """Calls per phase of one model's step."""
    out: dict[str, int] = defaultdict(int)
    for per_phase in rec.phases.values():
        for phase, n in per_phase.items():
            out[phase] += n
    return {p: out[p] for p in _ordered(set(out))}


def _op_entry(level: str, shapes: list[dict[str, Any]]) -> dict[str, Any]:
    shapes.sort(key=lambda s: (-s["calls"], -s["bytes"], s["_key"]))
    big = [s for s in shapes if s["bytes"] >= BIG_BYTES][:TOP_BIG]
    keep = {id(s) for s in shapes[:TOP_ALL]} | {id(s) for s in big}
    kept = [{k: v for k, v in s.items() if k != "_key"} for s in shapes if id(s) in keep]
    return {"level": level, "calls": sum(s["calls"] for s in shapes),
            "models": sorted({m for s in shapes for m in s["models"]}), "distinct": len(shapes), "shapes": kept}
