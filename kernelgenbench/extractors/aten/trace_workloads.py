"""Performance workloads from the committed model trace (kernelgenbench/data/aten_trace.json).

For an overload the trace calls, the most called distinct argument shapes that move at least MIN_BYTES
(and at most MAX_BYTES) become performance workloads, each naming the models and the phases of the step
(batch preparation, training step, optimizer step, generation) it came from. Smaller shapes
time launch overhead, not the kernel, and are left out. Values the trace cannot know (meta tensors have none) are drawn so the
call is valid: index tensors in range of the dimension they index, masks as coin flips, float tensors
from the op's template in data/aten_workloads.yaml where it constrains the domain (acosh, log10), else
normal(0, 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kernelgenbench.extractors.aten import default_workloads
from kernelgenbench.extractors.aten.data_files import load, root_name
from kernelgenbench.trace import data as trace_data
from kernelgenbench.trace.data import PHASE_WORDS

MIN_BYTES = 1 << 20
# Eager attention at 8k tokens makes 8 GiB score tensors; a round holds inputs, outputs, the reference's
# outputs and fresh copies for timing, so shapes past this are left to the next most called ones.
MAX_BYTES = 2 << 30
PER_TASK = 4
_INT_DTYPES = {"int8", "uint8", "int16", "int32", "int64"}
# Index parameters: (op root, parameter) -> (the indexed tensor's parameter, the dimension's parameter or
# a fixed dimension). index_put_'s indices must not repeat: the written values would depend on write order.
_INDEXED = {("embedding", "indices"): ("weight", 0), ("gather", "index"): ("self", "dim"),
            ("index_select", "index"): ("self", "dim"), ("scatter", "index"): ("self", "dim"),
            ("scatter_add", "index"): ("self", "dim"), ("index_add", "index"): ("self", "dim")}
_LIST_INDEXED = {"index", "index_put", "_index_put_impl"}
_UNIQUE = {"index_put", "_index_put_impl"}


def _template_init(name: str, overload: str, param: str) -> dict[str, Any] | None:
    """The template's init for a parameter, when it is numeric (a bound named by a dim fits no traced shape)."""
    ops = load("workloads").get("ops", {})
    for key in (f"{name}.{overload}", name):
        t = ops.get(key, {}).get(param)
        if isinstance(t, dict) and isinstance(t.get("init"), dict):
            init = t["init"]
            if not any(isinstance(v, str) and k in ("low", "high") for k, v in init.items()):
                return dict(init)
    return None


def _dim_size(args: Mapping[str, Any], tensor: str, dim: int | str) -> int | None:
    shape = args.get(tensor, {}).get("tensor", {}).get("shape")
    d = dim if isinstance(dim, int) else args.get(dim, {}).get("value", 0)
    if not shape or not isinstance(d, int) or not -len(shape) <= d < len(shape):
        return None
    return int(shape[d])


def _index_init(root: str, param: str, args: Mapping[str, Any], position: int) -> dict[str, Any] | None:
    if (root, param) in _INDEXED:
        tensor, dim = _INDEXED[(root, param)]
        size = _dim_size(args, tensor, dim)
        return None if size is None else {"dist": "randint", "low": 0, "high": size}
    if root in _LIST_INDEXED and param == "indices":
        if root in _UNIQUE:
            return {"dist": "permutation"}
        size = _dim_size(args, "self", position)
        return None if size is None else {"dist": "randint", "low": 0, "high": size}
    return None


def _tensor(d: Mapping[str, Any], init: dict[str, Any] | None) -> dict[str, Any]:
    if init is None:
        if d["dtype"] == "bool":
            init = {"dist": "bernoulli", "p": 0.5}
        elif d["dtype"] in _INT_DTYPES:
            init = {"dist": "randint", "low": 0, "high": 2}
        else:
            init = {"dist": "normal", "mean": 0.0, "std": 1.0}
    spec: dict[str, Any] = {"kind": "tensor", "shape": list(d["shape"]), "dtype": d["dtype"], "init": init}
    if "stride" in d:
        spec["strides"] = list(d["stride"])
    return spec


def _number(desc: Mapping[str, Any]) -> float | int | str | None:
    """The Python number a descriptor holds ('inf' and 'nan' as text), or None."""
    v = desc.get("float", desc.get("value"))
    if "float" in desc or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    return None


def _wrapped_number(v: float | int | str) -> dict[str, Any]:
    """`t / 0.5` reaches div.Tensor with the number wrapped in a 0-dim tensor (double, or int64 for an
    int), which a dispatch mode sees as the number again: the workload passes it as that 0-dim tensor."""
    dtype = "int64" if isinstance(v, int) else "float64"
    return {"kind": "tensor", "shape": [], "dtype": dtype, "init": {"dist": "constant", "value": v}}


def _arg(rec: Mapping[str, Any], p: Mapping[str, Any], desc: Mapping[str, Any],
         args: Mapping[str, Any]) -> dict[str, Any] | None:
    """One workload argument from its trace descriptor, or None when the two do not fit together."""
    kind, name = p["kind"], p["name"]
    root = root_name(rec["name"])
    if "tensor" in desc and kind in ("tensor", "optional_tensor"):
        init = _index_init(root, name, args, 0) or _template_init(rec["name"], rec["overload"], name)
        return _tensor(desc["tensor"], init)
    if kind == "tensor" and _number(desc) is not None:
        return _wrapped_number(_number(desc))
    if "tensors" in desc and kind == "tensor_list":
        return {"kind": "tensor_list", "items": [
            None if t is None else _tensor(t, _index_init(root, name, args, i)) for i, t in enumerate(desc["tensors"])]}
    if "tensor" in desc or "tensors" in desc or kind in ("tensor", "tensor_list"):
        return None
    if "dtype" in desc:
        return {"kind": "dtype", "value": desc["dtype"]}
    if "device" in desc:
        return {"kind": "device", "value": None}
    if "float" in desc:
        return {"kind": "float", "value": desc["float"]}
    if kind in ("layout", "memory_format"):
        return {"kind": kind, "value": desc["value"]}
    return {"kind": "value", "value": desc["value"]}


def workload_args(rec: Mapping[str, Any], traced: Mapping[str, Any]) -> dict[str, Any] | None:
    """The workload's argument specs for one traced call of `rec`'s overload, or None if they do not fit
    the task's parameters (an argument the schema does not name, a tensor where a value is due)."""
    params = {p["name"]: p for p in rec["params"]}
    if not set(traced) <= set(params):
        return None
    out: dict[str, Any] = {}
    for name, desc in traced.items():
        spec = _arg(rec, params[name], desc, traced)
        if spec is None:
            return None
        out[name] = spec
    return out


def trace_workloads(rec: Mapping[str, Any], source: str | None = None,
                    limit: int = PER_TASK) -> list[dict[str, Any]]:
    """Up to `limit` performance workloads for `rec` from the trace of overload `source` (default: the
    record's own), most called first; [] when the trace has no shape between MIN_BYTES and MAX_BYTES."""
    q = source or rec["id"].removeprefix("aten/")
    entry = trace_data.load()["ops"].get(q)
    if entry is None:
        return []
    workloads: list[dict[str, Any]] = []
    for shape in entry["shapes"]:
        if not MIN_BYTES <= shape["bytes"] <= MAX_BYTES or len(workloads) >= limit:
            continue
        args = workload_args(rec, shape["args"])
        if args is None:
            continue
        workloads.append({"id": f"trace-{len(workloads)}", "purpose": "performance", "origin": origin(shape),
                          "args": args, "description": f"{default_workloads.describe(args)}; {_calls(shape)}"})
    return workloads


def origin(shape: Mapping[str, Any]) -> str:
    """'trace:<phases>:<models>': the phases of the step (data, train, optimizer, generate) and the models
    a traced shape was called in, e.g. 'trace:generate:llama-2-7b,mistral-7b'."""
    return f"trace:{'+'.join(trace_data.shape_phases(shape))}:{','.join(shape['models'])}"


def _calls(shape: Mapping[str, Any]) -> str:
    """'12 calls per training step over gpt2, opt-1.3b' (per step of the phases it was called in)."""
    per = " / ".join(PHASE_WORDS[p] for p in trace_data.shape_phases(shape))
    return f"{shape['calls']} calls per {per} over {', '.join(shape['models'])}"

