"""Speed of light: the fewest bytes and the FLOPs a workload needs, over the device's measured ceilings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.ceilings import Ceilings, device_ceilings
from kernelgenbench.evaluator.cost import CostError, flatten_tensors, workload_cost


def _compute_dtype(args: Mapping[str, Any]) -> str:
    floats = [t for v in args.values() for t in flatten_tensors(v) if t.dtype.is_floating_point or t.dtype.is_complex]
    if not floats:
        return "float32"
    widest = max(floats, key=lambda t: t.numel())
    name = str(widest.dtype).removeprefix("torch.")
    return {"complex64": "float32", "complex128": "float64"}.get(name, name)


def floor_us(cost: Mapping[str, Any], ceilings: Ceilings, dtype: str) -> tuple[float, str]:
    """The time floor in µs and what bounds it ('memory' or 'compute')."""
    mem = cost["bytes"] / ceilings.copy_bytes_per_s
    if cost["unit"] == "matrix":
        rate = ceilings.matrix_flops_per_s.get(dtype, ceilings.matrix_flops_per_s.get("bfloat16", 0.0))
    else:
        rate = ceilings.vector_flops_per_s
    comp = cost["flops"] / rate if rate else 0.0
    return max(mem, comp) * 1e6, ("memory" if mem >= comp else "compute")


def speed_of_light(task: Task, args: Mapping[str, Any], outputs: Any, *, device: str | torch.device,
                   ceilings: Ceilings | None = None) -> dict[str, Any]:
    """{'available', 'flops', 'bytes', 'floor_us', 'bound', ...} for one workload (outputs: returns + written args)."""
    if torch.device(device).type == "cpu":
        return {"available": False, "reason": "no accelerator"}
    try:
        cost = workload_cost(task.cost, args, outputs)
    except CostError as exc:
        return {"available": False, "reason": str(exc)}
    if cost is None:
        return {"available": False, "reason": f"{task.id} has no cost model"}
    ceil = ceilings or device_ceilings(device)
    dtype = _compute_dtype(args)
    floor, bound = floor_us(cost, ceil, dtype)
    return {"available": True, **cost, "dtype": dtype, "floor_us": floor, "bound": bound,
            "copy_bytes_per_s": ceil.copy_bytes_per_s, "device_name": ceil.device_name}


def sol_fraction(floor: float | None, time_us: float | None) -> float | None:
    """Fraction of speed of light reached: floor time over measured time (1.0 is the physical limit)."""
    if not floor or not time_us:
        return None
    return floor / time_us
