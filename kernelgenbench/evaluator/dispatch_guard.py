"""Tell torch compute from bookkeeping among the ATen ops recorded while a candidate ran.

What computes nothing is derived from torch's own op registry, by overload (`OpOverload` schema and tags):
views (`is_view`, tag `inplace_view`), metadata (returns no tensor, writes nothing, reads no tensor data:
no tag `data_dependent_output` or `pointwise`), copies (tag `view_copy`). Only policy the registry cannot
state lives in kernelgenbench/data/eval_dispatch_allowlist.yaml: fresh memory, fills, copies (and the task
categories whose work they are), how many scalars may be read to the host. Names match with their namespace: only `aten::` ops can be allowed, and
only overloads the evaluator's own torch knows (a candidate can register new ones in its process).

Two spellings reach here: the dispatch recorder's overload names ('aten::add.Tensor'; 'aten::sum' is the
default overload) and the profiler's op names ('aten::add', an overload packet, judged by its worst
overload). The profiler also records composite ops (`CompositeImplicitAutograd` only) whose decomposition
it records as well; those are judged through their parts -- but only where the parts show the work: a
composite whose schema says it computes, recorded with fresh memory beneath it (allocations, fills, copies)
and nothing beneath it that computes, did its work natively under its own name (torch's FBGEMM composites
call FBGEMM on an `empty` output), and is compute itself (`unexplained_composites`).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kernelgenbench.datafiles import load_data
from kernelgenbench.sandbox.protocol import LAUNCH_PART


class OpClass(enum.Enum):
    """What one op does, as far as torch compute is concerned."""

    VIEW = "view"
    METADATA = "metadata"
    ALLOCATION = "allocation"
    FILL = "fill"
    COPY = "copy"
    SCALAR_READ = "scalar_read"
    DECOMPOSED = "decomposed"  # a composite op as the profiler names it: its parts are recorded too
    COMPUTE = "compute"


# Worst first: a packet is as bad as its worst overload.
_RANK = [OpClass.COMPUTE, OpClass.SCALAR_READ, OpClass.COPY, OpClass.FILL, OpClass.ALLOCATION, OpClass.METADATA, OpClass.VIEW,
         OpClass.DECOMPOSED]


@dataclass(frozen=True)
class Policy:
    """The part of the allowlist that torch's registry cannot derive (aten overload packet names)."""

    allocation: frozenset[str]
    fills: frozenset[str]
    copy: frozenset[str]
    aliases: frozenset[str]
    scalar_reads: frozenset[str]
    scalar_reads_max: int
    copy_categories: frozenset[str]
    fill_categories: frozenset[str]
    reads_data: frozenset[str]  # look like metadata in the registry, but their kernels read tensor data


@functools.cache
def policy() -> Policy:
    """The policy from kernelgenbench/data/eval_dispatch_allowlist.yaml."""
    data = load_data("eval_dispatch_allowlist.yaml", top=dict)
    reads = data["scalar_reads"]
    return Policy(frozenset(data["allocation"]), frozenset(data["fills"]), frozenset(data["copy"]),
                  frozenset(data["aliases"]), frozenset(reads["ops"]), int(reads["max_per_call"]),
                  frozenset(data["copy_categories"]), frozenset(data["fill_categories"]), frozenset(data["reads_data"]))


def _is_tensor_type(t: Any) -> bool:
    return "Tensor" in str(t)  # Tensor, Tensor?, Tensor[], Tensor?[]


def _by_schema(op: Any) -> OpClass:
    """The class of one aten overload from its schema and tags alone."""
    schema, tags = op._schema, {str(t).rsplit(".", 1)[-1] for t in op.tags}
    if "view_copy" in tags:
        return OpClass.COPY
    if "inplace_view" in tags or op.is_view:  # aliases an input, or changes only its metadata in place
        return OpClass.VIEW
    if _writes(op) or tags & {"data_dependent_output", "pointwise"}:
        return OpClass.COMPUTE
    if any(_is_tensor_type(r.type) for r in schema.returns):
        return OpClass.COMPUTE
    if schema.returns:  # a dtype, a size, a flag about the tensors' metadata
        return OpClass.METADATA
    # Returns nothing: harmless only when it takes no tensor (an assert on a tensor reads its data).
    return OpClass.COMPUTE if any(_is_tensor_type(a.type) for a in schema.arguments) else OpClass.METADATA


def _writes(op: Any) -> bool:
    return any(a.alias_info is not None and a.alias_info.is_write for a in op._schema.arguments)


def _by_policy(packet: str, op: Any) -> OpClass | None:
    p = policy()
    if packet in p.reads_data:
        return OpClass.COMPUTE
    for names, cls in ((p.allocation, OpClass.ALLOCATION), (p.fills, OpClass.FILL), (p.copy, OpClass.COPY),
                       (p.aliases, OpClass.VIEW),
                       (p.scalar_reads, OpClass.SCALAR_READ)):
        if packet in names:
            # an alias op's out= overload writes its data into `out`: a copy
            return OpClass.COPY if cls is OpClass.VIEW and _writes(op) else cls
    return None


def _packet(name: str) -> Any:
    """The aten overload packet named 'aten::foo[.overload]', or None (another namespace, or unknown here)."""
    import torch

    ns, sep, rest = name.partition("::")
    if not sep or ns != "aten":
        return None
    return getattr(torch.ops.aten, rest.split(".", 1)[0], None)


def _foreign(name: str) -> OpClass:
    """An op outside aten (a library's or the candidate's own): metadata only when it can touch no tensor at
    all -- no tensor in, none out, nothing written (torchvision::_cuda_version, a library's version probe);
    every other one is compute, whatever its name. A name without overload stands for all of them."""
    import torch

    ns, sep, rest = name.partition("::")
    base, _, overload = rest.partition(".")
    try:
        packet = getattr(getattr(torch.ops, ns), base)
        ops = [getattr(packet, o) for o in ([overload] if overload else packet.overloads())]
    except (AttributeError, RuntimeError):
        return OpClass.COMPUTE
    if sep and f"{ns}::{base}" in policy().aliases:  # torch's own view made in C++ (inductor's pool allocator)
        return OpClass.COPY if any(map(_writes, ops)) else OpClass.VIEW
    return schema_class(tuple(str(op._schema) for op in ops)) if sep else OpClass.COMPUTE


@functools.cache
def schema_class(texts: tuple[str, ...]) -> OpClass:
    """An op known here only by its schemas' text: metadata when no overload can touch a tensor (no tensor in,
    none out, nothing written: a version probe), else compute."""
    import torch

    try:
        schemas = [torch._C.parse_schema(t) for t in texts]
    except RuntimeError:
        return OpClass.COMPUTE
    for s in schemas:
        if any(_is_tensor_type(a.type) or (a.alias_info is not None and a.alias_info.is_write)
               for a in (*s.arguments, *s.returns)):
            return OpClass.COMPUTE
    return OpClass.METADATA if schemas else OpClass.COMPUTE


@functools.cache
def classify_overload(name: str) -> OpClass:
    """Class of an overload as the dispatch recorder names it ('aten::add.Tensor'; no suffix: the default)."""
    packet = _packet(name)
    if packet is None:
        return _foreign(name) if not name.startswith("aten::") else OpClass.COMPUTE
    base, _, overload = name.partition("::")[2].partition(".")
    op = getattr(packet, overload or "default", None)
    if op is None:  # an overload torch does not define: registered by the candidate
        return OpClass.COMPUTE
    return _by_policy(base, op) or _by_schema(op)


# Kernels that would do the work under a composite's own name (the profiler would then record no parts).
_OWN_KERNELS = ("CPU", "CUDA", "XPU", "HIP", "MPS", "PrivateUse1", "CompositeExplicitAutograd",
                "CompositeExplicitAutogradNonFunctional")


def _composite(op: Any) -> bool | None:
    """Whether the overload runs only as a CompositeImplicitAutograd decomposition (None: not in the dispatcher,
    a TorchScript builtin that never runs there)."""
    import torch

    has = torch._C._dispatch_has_kernel_for_dispatch_key
    try:
        return has(op.name(), "CompositeImplicitAutograd") and not any(has(op.name(), k) for k in _OWN_KERNELS)
    except RuntimeError:
        return None


@functools.cache
def classify_recorded(name: str) -> OpClass:
    """Class of an op as the profiler names it: an overload packet ('aten::add'), or an overload if named.
    Composites are DECOMPOSED: the profiler records the ops they run as well, and those are judged."""
    packet = _packet(name)
    if packet is None:
        return _foreign(name) if not name.startswith("aten::") else OpClass.COMPUTE
    base, _, overload = name.partition("::")[2].partition(".")
    overloads = [overload] if overload else packet.overloads()
    ops = [getattr(packet, o, None) for o in overloads]
    if None in ops:  # an overload torch does not define: registered by the candidate
        return OpClass.COMPUTE
    composite = [c for c in map(_composite, ops) if c is not None]
    if composite and all(composite):
        return OpClass.DECOMPOSED
    classes = {classify_overload(f"aten::{base}.{o}") for o in overloads}
    return min(classes, key=_RANK.index) if classes else OpClass.COMPUTE


def computes_nothing(name: str) -> bool:
    """'aten::foo[.overload]' is an op torch knows whose every overload (or the one named) computes nothing and
    reads no tensor data: metadata (`is_non_overlapping_and_dense`), allocation (`empty_strided`) or an
    out-of-place view (`view`, `as_strided`): a candidate may call it by name, as it may call `torch.empty`.
    In-place metadata changes (`set_`, `resize_`) are not among them: they rebind an argument's storage."""
    packet = _packet(name)
    if packet is None:
        return False
    base, _, overload = name.partition("::")[2].partition(".")
    if overload and overload not in packet.overloads():
        return False
    cls = _own_class(name)
    return cls in (OpClass.METADATA, OpClass.ALLOCATION) or (cls is OpClass.VIEW and not base.endswith("_"))


# Parts that make a composite's output out of fresh memory: someone must then write it.
_FRESH = (OpClass.ALLOCATION, OpClass.FILL, OpClass.COPY)
# Parts that show the work: compute, or a composite that computes (each judged itself). A scalar read does not:
# it fills no fresh tensor.
_SHOWS_WORK = (OpClass.COMPUTE,)


@functools.cache
def _own_class(name: str) -> OpClass:
    """What a composite's schema says it does, as if it had a kernel of its own (worst overload)."""
    packet = _packet(name)
    base, _, overload = name.partition("::")[2].partition(".")
    overloads = [overload] if overload else packet.overloads()
    return min((classify_overload(f"aten::{base}.{o}") for o in overloads), key=_RANK.index)


def _shows_work(part: str) -> bool:
    cls = classify_recorded(part)
    return cls in _SHOWS_WORK or (cls is OpClass.DECOMPOSED and _own_class(part) is OpClass.COMPUTE)


def wraps_launches(name: str, calls: Iterable[Iterable[str]]) -> bool:
    """An op outside aten each of whose recorded calls ran a Triton launch beneath it: the candidate's own
    custom_op or triton_op around its kernels (the dispatch recorder ran its function, recording what it
    dispatched: sandbox/dispatch.py). Native code cannot open a launch range; what the function dispatched
    besides is recorded beneath it and judged on its own."""
    calls = [set(c) for c in calls]
    return not name.startswith("aten::") and bool(calls) and all(LAUNCH_PART in c for c in calls)


def unexplained_composites(names: Iterable[str], parts: Mapping[str, Iterable[Iterable[str]]]) -> list[str]:
    """The composites among `names` (profiler names) that computed under their own name: their schema says they
    compute, and one recorded call had fresh memory beneath it and no part that computes (`parts`: per name,
    each distinct set of ops recorded directly beneath one call). A call with nothing beneath returned an input
    (atleast_2d of a matrix); one with views beneath only, aliases of its inputs (broadcast_tensors)."""
    out = []
    for name in names:
        if classify_recorded(name) is not OpClass.DECOMPOSED or _own_class(name) is not OpClass.COMPUTE:
            continue
        for call in parts.get(name, ()):
            kids = list(call)
            if any(classify_recorded(k) in _FRESH for k in kids) and not any(map(_shows_work, kids)):
                out.append(name)
                break
    return out


def _counts(ops: Mapping[str, int] | Iterable[str]) -> dict[str, int]:
    if isinstance(ops, Mapping):
        return {str(k): int(v) for k, v in ops.items()}
    out: dict[str, int] = {}
    for op in ops:
        out[str(op)] = out.get(str(op), 0) + 1
    return out


def compute_ops(ops: Mapping[str, int] | Iterable[str], *, category: str, profiler: bool = False,
                in_launch: bool = False, parts: Mapping[str, Iterable[Iterable[str]]] | None = None,
                schemas: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """The ops among `ops` ({name: count}, or names) that count as torch compute for a task of this category.

    `profiler`: names as the profiler writes them (packets); `parts` (the profile's cpu_op_parts) then tells
    which composites did their work natively (`unexplained_composites`). `in_launch`: ops seen inside a Triton
    launch, where the interpreter makes its own host aliases (new_empty, set_) and copies back (copy_, one per
    argument storage at most, so never more than its new_empty calls). `schemas`: the worker's schemas of ops
    outside aten that this process does not know (a library loaded only there).
    """
    p = policy()
    counts = _counts(ops)
    classify = classify_recorded if profiler else classify_overload
    copy_task, fill_task = category in p.copy_categories, category in p.fill_categories
    out, reads = [], 0
    for name, n in counts.items():
        if profiler and wraps_launches(name, (parts or {}).get(name, ())):
            continue
        cls = classify(name)
        if cls is OpClass.COMPUTE and schemas and name in schemas and not name.startswith("aten::"):
            cls = schema_class(tuple(schemas[name]))
        # Inside a launch the interpreter makes host aliases (new_empty, set_) and copies back (copy_, bounded
        # below); no code of the candidate's runs there (sandbox/hooks.py, quiet), so any fill, other copy or
        # scalar read there is code that got in anyway (red team 25: a print hook's fill_).
        if in_launch and cls in (OpClass.FILL, OpClass.SCALAR_READ, OpClass.COPY) and _base(name) != "copy_":
            out.append(name)
        elif (cls is OpClass.COMPUTE or (cls is OpClass.FILL and fill_task)
                or (cls is OpClass.COPY and copy_task and not (in_launch and _base(name) == "copy_"))):
            out.append(name)
        elif cls is OpClass.SCALAR_READ:
            reads += n
    if profiler:
        out += unexplained_composites(counts, parts or {})
    # Under a dispatch mode the profiler records each op the mode forwards twice (Python key, then redispatch).
    limit = p.scalar_reads_max * (2 if profiler else 1)
    if reads > limit:
        out.append(f"{reads} scalar reads to the host (more than {limit}: computing element by element)")
    if in_launch:
        copies = sum(n for k, n in counts.items() if _base(k) == "copy_")
        aliases = sum(n for k, n in counts.items() if _base(k) == "new_empty")
        if copies > aliases:
            out.append(f"{copies} copy_ inside Triton launches, more than the interpreter's {aliases} argument copies")
    return out


def _base(name: str) -> str:
    ns, _, rest = name.partition("::")
    return rest.split(".", 1)[0] if ns == "aten" else ""
