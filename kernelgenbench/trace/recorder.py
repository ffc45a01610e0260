"""Record the aten overloads a model's step calls, with each call's arguments named by the op's schema.

Two levels: a dispatch mode sees every overload that reaches a backend kernel (after autograd and after
CompositeImplicitAutograd ops decompose); a function mode sees the torch-level calls whose aten overload
is such a composite (linear, matmul, contiguous, to, softmax, ...), which the dispatch mode never sees.
"""

from __future__ import annotations

import inspect
import json
import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

# One recorded call: (overload name, level, canonical argument descriptors).
CallKey = tuple[str, str, str]


def describe_tensor(t: torch.Tensor) -> dict[str, Any]:
    """{'shape', 'dtype'} plus 'stride' when the tensor is not contiguous."""
    d: dict[str, Any] = {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")}
    if not t.is_contiguous():
        d["stride"] = list(t.stride())
    return d


def describe_value(v: Any) -> Any:
    """A JSON-ready descriptor of one argument: a tensor, a list of them, or a plain value."""
    if isinstance(v, torch.Tensor):
        return {"tensor": describe_tensor(v)}
    if isinstance(v, list | tuple) and v and all(x is None or isinstance(x, torch.Tensor) for x in v) \
            and any(isinstance(x, torch.Tensor) for x in v):
        return {"tensors": [None if x is None else describe_tensor(x) for x in v]}
    if isinstance(v, list | tuple) and any(isinstance(x, torch.Tensor) for x in v):
        # a SymInt list holding 0-dim tensors (sizes computed on device): their values are unknown here
        return {"value": [f"tensor{list(x.shape)}" if isinstance(x, torch.Tensor) else x for x in v]}
    if isinstance(v, torch.dtype):
        return {"dtype": str(v).removeprefix("torch.")}
    if isinstance(v, torch.device):
        return {"device": True}
    if isinstance(v, torch.layout | torch.memory_format):
        return {"value": str(v).removeprefix("torch.")}
    if isinstance(v, float) and not math.isfinite(v):
        return {"float": str(v)}
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, bool | int | str) or v is None:
        return {"value": v}
    if isinstance(v, list | tuple | torch.Size):
        return {"value": [d.get("value", d.get("float")) for d in map(describe_value, v)]}
    return {"value": repr(v)}


def tensor_bytes(x: Any) -> int:
    """Logical bytes of every tensor in a value (nested lists and tuples)."""
    if isinstance(x, torch.Tensor):
        return x.numel() * x.element_size()
    if isinstance(x, list | tuple):
        return sum(tensor_bytes(v) for v in x)
    return 0


def bind_schema(schema: torch._C.FunctionSchema, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments by parameter name (only those passed; defaults are left out)."""
    positional = [a for a in schema.arguments if not a.kwarg_only]
    bound = {a.name: v for a, v in zip(positional, args, strict=False)}
    bound.update(kwargs)
    return bound


def _type_fits(arg: torch._C.Argument, v: Any) -> bool:
    # real_type keeps ScalarType, MemoryFormat and Layout, which `type` shows as int.
    text = str(arg.real_type)
    optional = text.startswith("Optional[")
    if v is None:
        return optional
    base = text.removeprefix("Optional[").removesuffix("]") if optional else text
    base = {"List[int]": "int[]", "List[SymInt]": "int[]"}.get(base, base)
    if base == "Tensor":
        return isinstance(v, torch.Tensor)
    if isinstance(v, torch.Tensor):
        return False
    if base in ("int", "SymInt"):
        return isinstance(v, int) and not isinstance(v, bool)
    if base in ("float", "Scalar", "number"):
        return isinstance(v, int | float | complex)
    if base == "bool":
        return isinstance(v, bool)
    if base == "ScalarType":
        return isinstance(v, torch.dtype)
    if base == "Device":
        return isinstance(v, torch.device | str)
    if base.endswith("[]") or base.startswith("List"):
        return isinstance(v, list | tuple | torch.Size)
    if base == "str":
        return isinstance(v, str)
    return True


def match_overload(packet: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any | None:
    """The overload of `packet` whose schema the call's arguments fit (names and value types), or None."""
    for name in packet.overloads():
        op = getattr(packet, name)
        schema = op._schema
        names = {a.name for a in schema.arguments}
        positional = [a for a in schema.arguments if not a.kwarg_only]
        if len(args) > len(positional) or not set(kwargs) <= names:
            continue
        bound = bind_schema(schema, args, kwargs)
        required = {a.name for a in schema.arguments
                    if not a.has_default_value() and not str(a.real_type).startswith("Optional[")}
        by_name = {a.name: a for a in schema.arguments}
        if required <= set(bound) and all(_type_fits(by_name[k], v) for k, v in bound.items()):
            return op
    return None


class Recording:
    """Calls counted by (overload, level, arguments), the bytes each distinct call touches, and the phases
    of the step (training step, optimizer step, generation, ...) each was called in."""

    def __init__(self, phase: str = "train") -> None:
        self.calls: Counter[CallKey] = Counter()
        self.nbytes: dict[CallKey, int] = {}
        self.phase = phase  # the phase calls are counted in from now on
        self.phases: dict[CallKey, Counter[str]] = {}

    def add(self, op: Any, level: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], out: Any) -> None:
        """Count one call of `op` (an OpOverload)."""
        bound = bind_schema(op._schema, args, kwargs)
        desc = {k: describe_value(v) for k, v in bound.items()}
        key = (_overload_name(op), level, json.dumps(desc, sort_keys=True))
        self.calls[key] += 1
        self.phases.setdefault(key, Counter())[self.phase] += 1
        if key not in self.nbytes:
            self.nbytes[key] = tensor_bytes(list(bound.values())) + tensor_bytes(out)


def _overload_name(op: Any) -> str:
    """'add.Tensor', 'linear.default'."""
    return f"{op._schema.name.removeprefix('aten::')}.{op._overloadname}"


class DispatchRecorder(TorchDispatchMode):
    """Counts every aten overload dispatched below autograd."""

    def __init__(self, rec: Recording) -> None:
        super().__init__()
        self.rec = rec

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if func is torch.ops.aten._local_scalar_dense.default and args[0].device.type == "meta":
            # A meta tensor has no value: .item() answers one (1, True, 1.0), so the step goes on.
            out = True if args[0].dtype == torch.bool else (1.0 if args[0].is_floating_point() else 1)
        else:
            out = func(*args, **kwargs)
        if func.namespace == "aten":
            self.rec.add(func, "dispatch", args, kwargs, out)
        return out


# torch-level names whose aten op has another name.
_FUNCTION_ALIASES = {"cross_entropy": "cross_entropy_loss", "__matmul__": "matmul"}


class FunctionRecorder(TorchFunctionMode):
    """Counts torch-level calls that resolve to a CompositeImplicitAutograd aten overload."""

    def __init__(self, rec: Recording) -> None:
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        op = _composite_overload(func, args, kwargs)
        if op is not None:
            clean = {k: v for k, v in kwargs.items() if not k.startswith("_")}
            self.rec.add(op, "function", args, clean, out)
        return out


def _composite_overload(func: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any | None:
    name = getattr(func, "__name__", "")
    name = _FUNCTION_ALIASES.get(name, name)
    if not name or name.startswith("_") or inspect.isclass(func):
        return None
    packet = getattr(torch.ops.aten, name, None)
    if packet is None or not hasattr(packet, "overloads"):
        return None
    clean = {k: v for k, v in kwargs.items() if not k.startswith("_")}
    op = match_overload(packet, args, clean)
    if op is None:
        return None
    qual = f"aten::{name}" + ("" if op._overloadname == "default" else f".{op._overloadname}")
    try:
        composite = torch._C._dispatch_has_kernel_for_dispatch_key(qual, "CompositeImplicitAutograd")
    except RuntimeError:  # a TorchScript-only overload (to.prim_Device) or a non-aten name (size)
        return None
    return op if composite else None
