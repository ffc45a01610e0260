"""Speed of light: the fewest bytes and the FLOPs a workload needs, over the device's measured ceilings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.ceilings import Ceilings, device_ceilings
from kernelgenbench.evaluator.cost import CostError, flatten_tensors, workload_cost
from kernelgenbench.evaluator.results import headline_us


def _compute_dtype(args: Mapping[str, Any]) -> str:
    floats = [t for v in args.values() for t in flatten_tensors(v) if t.dtype.is_floating_point or t.dtype.is_complex]
    if not floats:
        return "float32"
    widest = max(floats, key=lambda t: t.numel())
    name = str(widest.dtype).removeprefix("torch.")
    return {"complex64": "float32", "complex128": "float64"}.get(name, name)


# The matrix rates a product whose operands are of a dtype may run at: float32 operands through TF32.
_MATRIX_RATES_OF = {"float32": ("float32", "tfloat32")}


def matrix_rate(ceilings: Ceilings, dtype: str) -> float:
    """The fastest measured matrix rate for operands of `dtype` (bfloat16's where the dtype has none)."""
    rates = ceilings.matrix_flops_per_s
    got = [rates[k] for k in _MATRIX_RATES_OF.get(dtype, (dtype,)) if k in rates]
    return max(got) if got else rates.get("bfloat16", 0.0)


def matrix_dtype(args: Mapping[str, Any], ceilings: Ceilings) -> str:
    """Of the dtypes of a matrix product's tensor arguments, the one with the fastest measured rate: int8 or
    float8 operands next to a bfloat16 output or float32 scales run at the int8 or float8 rate, and a floor
    must assume the fastest the operands allow."""
    names = {str(t.dtype).removeprefix("torch.") for v in args.values() for t in flatten_tensors(v)}
    known = [n for n in names if n in ceilings.matrix_flops_per_s or n in _MATRIX_RATES_OF]
    return max(known, key=lambda n: matrix_rate(ceilings, n)) if known else _compute_dtype(args)


def floor_us(cost: Mapping[str, Any], ceilings: Ceilings, dtype: str) -> tuple[float, str]:
    """The time floor in µs and what bounds it ('memory' or 'compute').

    Where the cost splits its bytes into reads and writes, the memory floor meets the read and write
    ceilings (a fill or a reduction runs faster than a copy moves bytes); else all bytes meet the copy one.
    """
    if "reads" in cost and "writes" in cost:
        mem = ceilings.memory_floor_s(cost["reads"], cost["writes"])
    else:
        mem = cost["bytes"] / ceilings.copy_bytes_per_s
    if cost["unit"] == "matrix":
        rate = matrix_rate(ceilings, dtype)
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
    dtype = matrix_dtype(args, ceil) if cost["unit"] == "matrix" else _compute_dtype(args)
    floor, bound = floor_us(cost, ceil, dtype)
    return {"available": True, **cost, "dtype": dtype, "floor_us": floor, "bound": bound,
            "copy_bytes_per_s": ceil.copy_bytes_per_s, "read_bytes_per_s": ceil.read_bytes_per_s,
            "write_bytes_per_s": ceil.write_bytes_per_s, "device_name": ceil.device_name}


# Below the floor: a measured time under the speed-of-light floor is physically impossible if the floor is
# right. Floors are not proven tight: in bench/results/examples_h200_results.jsonl the eager reference of
# aten/bernoulli.p runs at 0.90x its floor and aten/mm's at 0.99x (a cost model that overcounts bytes, a
# measured ceiling below the real peak). Repetition noise is under 1 % (bench_timing_noise). So a time
# under the floor is flagged and left out of speedups; only a time under IMPOSSIBLE_BELOW x the floor --
# a factor no cost-model slack seen so far comes near -- fails the candidate (a forged or broken timing),
# and only while no baseline of the same workload is itself under the floor (that would prove the floor
# wrong, not the candidate).
IMPOSSIBLE_BELOW = 0.5


def mark_below_floor(timing: Mapping[str, Any] | None, floor: float | None) -> dict[str, Any] | None:
    """A copy of `timing` with 'below_floor' and 'floor_ratio' (time / floor) when its time is under the
    floor; the timing unchanged (a copy) otherwise, None for None."""
    if timing is None:
        return None
    out = dict(timing)
    t = headline_us(timing)
    if t is not None and floor and t < floor:
        out["below_floor"] = True
        out["floor_ratio"] = t / floor
    return out


@dataclass(frozen=True)
class FloorCheck:
    """The timings with below-floor marks, whether the candidate's time is impossible, and the evidence."""

    timing: dict[str, Any] | None
    baselines: dict[str, Any] | None
    impossible: bool
    note: str


def check_floor(timing: Mapping[str, Any] | None, baselines: Mapping[str, Any] | None,
                sol: Mapping[str, Any] | None) -> FloorCheck:
    """Mark the candidate's and the baselines' timings that fall under the speed-of-light floor."""
    floor = float(sol["floor_us"]) if sol and sol.get("available") and sol.get("floor_us") else None
    marked = mark_below_floor(timing, floor)
    bases = {k: mark_below_floor(v, floor) if isinstance(v, Mapping) else v for k, v in (baselines or {}).items()}
    slow_bases = sorted(k for k, v in bases.items() if isinstance(v, Mapping) and v.get("below_floor"))
    notes = []
    impossible = False
    if marked is not None and marked.get("below_floor"):
        ratio = marked["floor_ratio"]
        notes.append(f"measured {headline_us(marked):.3g} us is {ratio:.2f}x the speed-of-light floor "
                     f"{floor:.3g} us ({sol['bound']}-bound); left out of speedups")  # type: ignore[index]
        impossible = ratio < IMPOSSIBLE_BELOW and not slow_bases
        if impossible:
            notes.append(f"under {IMPOSSIBLE_BELOW}x the floor no real kernel runs: the timing is forged or broken")
    if slow_bases:
        notes.append(f"baseline(s) {', '.join(slow_bases)} also timed under the floor: the floor itself is "
                     "too high for this workload (cost model or ceiling), not proof against the candidate")
    return FloorCheck(marked, bases if baselines is not None else None, impossible, "; ".join(notes))
