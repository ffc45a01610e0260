"""Correctness workloads from OpInfo samples, attributed to the aten overload that actually runs.

Each OpInfo sample is run once on CPU under a TorchDispatchMode; every aten call it makes is recorded
with its arguments as they reach that overload (serialized to specs before the call mutates anything).
A sample belongs to a task only when the traced overload IS the task's overload: a sample of torch.add
with a Python number reaches add.Tensor (the number wrapped), never add.Scalar.
"""

from __future__ import annotations

import json
import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from kernelgenbench.extractors.aten.tensor_specs import Unserializable, value_spec


@dataclass(frozen=True)
class TracedSample:
    """One sample's arguments as they reached one aten overload."""

    overload: str
    origin: str
    args: dict[str, Any]


_EMPTY_OPS = frozenset({"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty",
                        "aten::new_empty_strided", "aten::empty_permuted"})


class _Recorder(TorchDispatchMode):
    """Records aten calls whose overload is wanted, up to `cap` distinct argument sets per overload."""

    def __init__(self, wanted: Callable[[str], bool], kept: dict[str, list[TracedSample]],
                 seen: dict[str, set[str]], cap: int, origin: str) -> None:
        super().__init__()
        self.wanted, self.kept, self.seen, self.cap, self.origin = wanted, kept, seen, cap, origin
        # Storages allocated by an `empty` op and not written since: their values are whatever memory held,
        # so a spec must not take its value range from them (nor would two extractions agree on it).
        self.unwritten: set[int] = set()

    def _uninitialized(self, t: torch.Tensor) -> bool:
        return t.numel() > 0 and t.untyped_storage().data_ptr() in self.unwritten

    def _track_writes(self, func: Any, args: tuple, kwargs: dict, out: Any) -> None:
        named = dict(zip((a.name for a in func._schema.arguments), args, strict=False)) | kwargs
        for a in func._schema.arguments:
            v = named.get(a.name)
            if a.alias_info is not None and a.alias_info.is_write and isinstance(v, torch.Tensor):
                self.unwritten.discard(v.untyped_storage().data_ptr())
        if func._schema.name in _EMPTY_OPS and isinstance(out, torch.Tensor) and out.numel():
            self.unwritten.add(out.untyped_storage().data_ptr())

    def _spec(self, func: Any, args: tuple, kwargs: dict) -> dict[str, Any] | None:
        schema = func._schema
        named: dict[str, Any] = {}
        for a, v in zip(schema.arguments, args, strict=False):
            named[a.name] = v
        named.update(kwargs)
        try:
            specs = {}
            for k, v in named.items():
                if isinstance(v, torch.Generator):
                    return None  # a seeded generator cannot be re-created from a spec
                specs[k] = value_spec(v, self._uninitialized)
            return specs
        except Unserializable:
            return None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        kwargs = kwargs or {}
        schema = func._schema
        pending = None
        if schema.name.startswith("aten::"):
            q = schema.name[6:] + (f".{schema.overload_name}" if schema.overload_name else "")
            if self.wanted(q) and len(self.kept.get(q, ())) < self.cap:
                pending = (q, self._spec(func, args, kwargs))
        out = func(*args, **kwargs)
        self._track_writes(func, args, kwargs, out)
        # Only calls that succeeded are kept: the recorded arguments are ones the overload accepts.
        if pending is not None and pending[1] is not None:
            q, specs = pending
            key = json.dumps(specs, sort_keys=True)
            if key not in self.seen.setdefault(q, set()):
                self.seen[q].add(key)
                self.kept.setdefault(q, []).append(TracedSample(q, self.origin, specs))
        return out


def _dtype(op: Any) -> torch.dtype | None:
    dts = op.supported_dtypes("cpu")
    if torch.float32 in dts:
        return torch.float32
    return sorted(dts, key=str)[0] if dts else None


def trace_op_db(
    wanted: Callable[[str], bool],
    *,
    cap: int = 8,
    samples_per_opinfo: int = 8,
    on_opinfo: Callable[[str], None] | None = None,
) -> tuple[dict[str, list[TracedSample]], list[str]]:
    """Trace OpInfo samples on CPU: traced samples per overload, and the OpInfos that failed to trace."""
    from torch.testing._internal.common_methods_invocations import op_db

    kept: dict[str, list[TracedSample]] = {}
    seen: dict[str, set[str]] = {}
    failed: list[str] = []
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        for op in op_db:
            label = op.name + (f":{op.variant_test_name}" if op.variant_test_name else "")
            if on_opinfo is not None:
                on_opinfo(label)
            dtype = _dtype(op)
            if dtype is None:
                continue
            # Samples are random: a fixed seed keeps the extraction reproducible. The CPU generator only:
            # torch.manual_seed would also queue a (costly) lazy seeding of every accelerator backend.
            torch.random.default_generator.manual_seed(0)
            random.seed(0)  # some sample functions draw Python numbers (margins, scalars) with `random`
            np.random.seed(0)
            try:
                # The sample function itself, not op.sample_inputs: that wraps it in a tracker that walks
                # the whole Python stack (inspect.stack) for every sample, 100x the cost of the tracing.
                samples = op.sample_inputs_func(op, "cpu", dtype, False)
                for i, s in enumerate(samples):
                    if i >= samples_per_opinfo:
                        break
                    variants = [(op.op, f"opinfo:{label}#{i}")]
                    if op.inplace_variant is not None:
                        variants.append((op.inplace_variant, f"opinfo:{label}:inplace#{i}"))
                    for fn, origin in variants:
                        inp = s.input.clone() if isinstance(s.input, torch.Tensor) else s.input
                        try:
                            with _Recorder(wanted, kept, seen, cap, origin):
                                fn(inp, *s.args, **s.kwargs)
                        except Exception:  # noqa: BLE001 - a sample the op rejects traces nothing usable
                            continue
            except Exception:  # noqa: BLE001 - a broken sample generator loses that OpInfo only
                failed.append(label)
    return kept, failed
