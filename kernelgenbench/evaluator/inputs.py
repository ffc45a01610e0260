"""Turn a workload into concrete arguments: draw tensors from their specs, or call the input generator."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch

from kernelgenbench.dataset.record import Code, Task, Workload
from kernelgenbench.errors import KgbError

_NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype for a record's dtype name ('float32', 'bfloat16', ...)."""
    dt = getattr(torch, name, None)
    if not isinstance(dt, torch.dtype):
        raise KgbError(f"unknown dtype {name!r} in a tensor spec; use a torch dtype name such as 'float32'")
    return dt


def _work_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype values are drawn in: float32 for floats up to 32 bits (float64 draws cost twice the time
    and memory for nothing), float64 for float64 and for integers (exact up to 2**53)."""
    if dtype in (torch.float64, torch.complex128) or not (dtype.is_floating_point or dtype.is_complex):
        return torch.float64
    return torch.float32


def _fill(spec: Mapping[str, Any], n: int, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    """`n` values of the spec's distribution, drawn on the generator's device."""
    init = spec["init"]
    dist = init["dist"]
    dev = gen.device
    if dist == "constant":
        v = init.get("value", 0)
        v = _NONFINITE.get(v, v) if isinstance(v, str) else v
        return torch.full((n,), v, dtype=dtype, device=dev)
    if dist == "arange":
        return torch.arange(n, device=dev).to(dtype)
    if dist == "permutation":
        return torch.randperm(n, generator=gen, device=dev).to(dtype)
    if dist == "bernoulli":
        return (torch.rand(n, generator=gen, device=dev) < init.get("p", 0.5)).to(dtype)
    if dist == "randint":
        lo, hi = int(init.get("low", 0)), int(init.get("high", 10))
        return torch.randint(lo, hi, (n,), generator=gen, dtype=torch.int64, device=dev).to(dtype)
    work = _work_dtype(dtype)
    if dtype.is_complex or dist == "randn_complex":
        re = torch.randn(n, generator=gen, dtype=work, device=dev)
        im = torch.randn(n, generator=gen, dtype=work, device=dev)
        return torch.complex(re, im).to(dtype) * (init.get("std", 1.0) / math.sqrt(2))
    if dist == "uniform":
        lo, hi = float(init.get("low", 0.0)), float(init.get("high", 1.0))
        base = torch.rand(n, generator=gen, dtype=work, device=dev) * (hi - lo) + lo
    else:  # normal
        base = torch.randn(n, generator=gen, dtype=work, device=dev) * init.get("std", 1.0) + init.get("mean", 0.0)
    if not (dtype.is_floating_point or dtype.is_complex):
        base = base.round()
    return base.to(dtype)


def generator(seed: int, device: str | torch.device) -> torch.Generator:
    """A generator seeded with `seed` on the accelerator when there is one: drawing tens of MB there takes
    microseconds, against seconds on the host (the same seed gives other values on CPU and on a device)."""
    dev = torch.device(device)
    if dev.type != "cpu":
        try:
            return torch.Generator(device=dev).manual_seed(seed)
        except (RuntimeError, TypeError):  # a backend without device generators draws on the host
            pass
    return torch.Generator().manual_seed(seed)


def make_tensor(spec: Mapping[str, Any], *, gen: torch.Generator, device: str | torch.device) -> torch.Tensor:
    """A fresh tensor drawn from a tensor spec, with the spec's shape, dtype, strides and offset."""
    dtype = torch_dtype(spec["dtype"])
    shape = list(spec["shape"])
    strides = spec.get("strides")
    offset = int(spec.get("offset", 0))
    if strides is None:
        n = math.prod(shape)
        return _fill(spec, n, dtype, gen).reshape(shape).to(device) if n else torch.empty(shape, dtype=dtype, device=device)
    # The storage must reach the farthest element the strides address.
    extent = 1 + sum((s - 1) * abs(st) for s, st in zip(shape, strides, strict=True)) if all(shape) else 0
    storage = _fill(spec, offset + extent, dtype, gen).to(device)
    return storage.as_strided(shape, strides, offset)


def materialize_arg(spec: Mapping[str, Any], *, gen: torch.Generator, device: str | torch.device) -> Any:
    """One workload argument as the callee receives it."""
    kind = spec["kind"]
    if kind == "tensor":
        return make_tensor(spec, gen=gen, device=device)
    if kind == "tensor_list":
        return [None if s is None else make_tensor(s, gen=gen, device=device) for s in spec["items"]]
    if kind == "float":
        v = spec["value"]
        return _NONFINITE.get(v, v) if isinstance(v, str) else float(v)
    if kind == "value":
        return spec["value"]
    if kind == "dtype":
        return None if spec["value"] is None else torch_dtype(spec["value"])
    if kind == "layout":
        return None if spec["value"] is None else getattr(torch, spec["value"])
    if kind == "memory_format":
        return None if spec["value"] is None else getattr(torch, spec["value"])
    if kind == "device":
        return torch.device(device)
    if kind == "complex":
        return complex(spec["real"], spec["imag"])
    raise KgbError(f"unknown argument kind {kind!r}")


def load_code(code: Code) -> Any:
    """Execute a record's self-contained module text and return its `function`."""
    namespace: dict[str, Any] = {"__name__": f"kgb_record_{code.module.replace('.', '_')}"}
    exec(compile(code.code, f"<{code.module}>", "exec"), namespace)  # noqa: S102 - record code is the reference
    try:
        return namespace[code.function]
    except KeyError:
        raise KgbError(f"record code {code.module} does not define {code.function!r}") from None


def make_args(task: Task, workload: Workload, *, seed: int, device: str | torch.device) -> dict[str, Any]:
    """Keyword arguments for one round of a workload, drawn fresh from `seed`."""
    if workload.params is not None:
        if task.inputs is None:
            raise KgbError(f"{task.id}: workload {workload.id} has generator params but the task has no generator")
        return dict(load_code(task.inputs)(dict(workload.params), seed=seed, device=str(device)))
    gen = generator(seed, device)
    return {name: materialize_arg(spec, gen=gen, device=device) for name, spec in (workload.args or {}).items()}


def round_inputs(task: Task, workload: Workload, *, seed: int, device: str | torch.device) -> dict[str, Any]:
    """One checked round's arguments: drawn from `seed`, pure outputs poisoned. The evaluator and its
    worker both call this, and their fingerprints must agree, so neither side may draw any other way."""
    args = make_args(task, workload, seed=seed, device=device)
    poison_outputs_(args, task)
    return args


def poison_outputs_(args: dict[str, Any], task: Task) -> None:
    """Fill pure outputs (direction 'out') with NaN or a sentinel, so elements left unwritten show."""
    for p in task.params:
        if p.direction != "out" or p.name not in args:
            continue
        for t in args[p.name] if isinstance(args[p.name], list) else [args[p.name]]:
            if not isinstance(t, torch.Tensor):
                continue
            if t.dtype.is_floating_point or t.dtype.is_complex:
                t.fill_(float("nan"))
            elif t.dtype == torch.bool:
                t.fill_(True)
            else:
                t.fill_(torch.iinfo(t.dtype).max)


def split_call_args(task: Task, kwargs: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments in signature order (keyword-only params go by keyword)."""
    args: list[Any] = []
    kw: dict[str, Any] = {}
    positional_ok = True
    for p in task.params:
        if p.name not in kwargs:
            positional_ok = False
            continue
        if p.keyword_only or not positional_ok:
            kw[p.name] = kwargs[p.name]
        else:
            args.append(kwargs[p.name])
    return args, kw
