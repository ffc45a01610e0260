"""The worker process: imports one candidate and runs it on the inputs the evaluator sends.

It never decides a verdict. It draws each round's inputs from the seed the evaluator names (or takes
them from shared memory), reports their fingerprints before and after the call, and sends back the
tensors the call produced and wrote (raw bytes in the shared-memory arena the evaluator handed it,
described as JSON over its pipe) with the evidence it saw: aten ops dispatched, Triton launches, replaced
functions, threads and streams left behind, exceptions. The candidate's stdout and stderr go to a log
file (the evaluator shows its tail), never to the pipe, so nothing the candidate prints reaches the verdict.

Messages to the evaluator are bytes: a message of sandbox/protocol.py as JSON, then (for results) the JSON
description of the tensors.
"""

from __future__ import annotations

import base64
import ctypes
import faulthandler
import importlib.util
import os
import resource
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from kernelgenbench.sandbox import launch_args
from kernelgenbench.sandbox.allocators import route_inductor_allocators
from kernelgenbench.sandbox.protocol import (
    CallReport,
    DrawError,
    HostMade,
    IsolationReport,
    Leaf,
    Message,
    Packing,
    Profile,
    Raised,
    Ready,
    Sizes,
    Threads,
    TimeReport,
    Timing,
    dump_bytes,
    encode,
    replaced,
)
from kernelgenbench.sandbox.scalars import ScalarLog, module_numbers, source_numbers
from kernelgenbench.sandbox.tamper_watch import MISSING, guard, watched_functions

TRACE_CHARS = 3000

# --- bound before any candidate code runs --------------------------------------------------------------
# The worker is imported (forkserver preload, or the spawned child's unpickling of `main`) before the
# candidate is. torch.Tensor is a Python class whose attributes a candidate can replace, and an object it
# returns can lie about its __class__, its type's name and every method; so what the worker uses to look
# into outputs and pack them is bound here, from torch._C.TensorBase (an immutable C type) and builtins.
import torch  # noqa: E402 - after the constant: the block below needs it at import time
from torch.utils._device import DeviceContext  # noqa: E402
from torch.utils._python_dispatch import _disable_current_modes  # noqa: E402

_type, _issubclass = type, issubclass
MAX_DEPTH, MAX_LEAVES = 32, 1 << 16  # bounds on reading a return value (a list may contain itself)
_TENSOR, _TENSOR_BASE = torch.Tensor, torch._C.TensorBase
_T_DEVICE = _TENSOR_BASE.__dict__["device"].__get__
_T_LAYOUT = _TENSOR_BASE.__dict__["layout"].__get__
_T_NESTED = _TENSOR_BASE.__dict__["is_nested"].__get__
_T_STORAGE = _TENSOR_BASE.untyped_storage
_T_NUMEL = _TENSOR_BASE.numel
_T_ITEM = _TENSOR_BASE.item
_T_SIZE, _T_STRIDE, _T_DTYPE = _TENSOR_BASE.size, _TENSOR_BASE.stride, _TENSOR_BASE.__dict__["dtype"].__get__
_T_ELEMENT_SIZE = _TENSOR_BASE.element_size
_T_DETACH = _TENSOR_BASE.detach  # a second tensor object on the same storage
_S_DATA_PTR = torch._C.StorageBase.data_ptr
_S_IMPL = torch._C.StorageBase.__dict__["_cdata"].__get__  # which storage (a resize keeps it, set_ does not)
_S_NBYTES = torch._C.StorageBase.nbytes
_G_GET_STATE = torch._C.Generator.get_state
_G_MANUAL_SEED = torch._C.Generator.manual_seed
_BUMP_VERSIONS = torch._C._increment_version  # of a tuple of tensors, as torch.autograd.graph does
_TYPE_MODULE = type.__dict__["__module__"].__get__
_TYPE_QUALNAME = type.__dict__["__qualname__"].__get__
_TYPE_DICT = type.__dict__["__dict__"].__get__
_LIST_ITER, _TUPLE_ITER = list.__iter__, tuple.__iter__
_FN_MODES, _DISPATCH_MODES = torch._C._len_torch_function_stack, torch._C._len_torch_dispatch_stack
_NO_FN_MODES, _NO_DISPATCH_MODES = torch._C.DisableTorchFunction, _disable_current_modes
_FN_MODE_AT = torch._C._get_function_stack_at
# Function modes torch itself enters for a library at import (`torch.set_default_device`): torch's code only.
_TORCH_FN_MODES = frozenset({DeviceContext})
# The pipe's methods from its class (watched): an instance attribute `conn.send_bytes` set by the candidate
# would otherwise see, and rewrite, every message on its way out.
_SEND_BYTES, _RECV = Connection.send_bytes, Connection.recv
# The Python classes in the MRO of tensors and storages: while their attributes are the ones seen here,
# calling a method of a plain tensor runs torch's code (TensorBase and StorageBase cannot be changed).
_CLASS_DICTS = tuple((cls, dict(_TYPE_DICT(cls))) for cls in (torch.Tensor, torch.UntypedStorage,
                                                             torch.storage._StorageBase))


def _send(conn: Any, message: Message, payload: bytes | None = None, reply_to: int | None = None) -> None:
    _SEND_BYTES(conn, encode(message, reply_to))
    if payload is not None:
        _SEND_BYTES(conn, payload)


def _trace(exc: BaseException) -> str:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return text[-TRACE_CHARS:]


def _redirect_output(log_path: str) -> Any:
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    log = os.fdopen(fd, "w", buffering=1)
    faulthandler.enable(file=log, all_threads=True)
    return log


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _cap_memory(device: str, cap_bytes: int, device_fraction: float) -> str:
    """Host: address space beyond what is mapped now; accelerator: a share of its memory."""
    kind = torch.device(device).type
    if kind == "cpu":
        if cap_bytes <= 0:
            return "none"
        limit = _vm_bytes() + cap_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        return f"RLIMIT_AS {limit}"
    # RLIMIT_AS would break the device runtime (it reserves huge virtual ranges): cap device memory instead.
    mod = getattr(torch, kind)
    if device_fraction > 0 and hasattr(mod, "set_per_process_memory_fraction"):
        mod.set_per_process_memory_fraction(min(1.0, device_fraction), torch.device(device).index or 0)
        return f"device fraction {device_fraction:.3f}"
    return "none"




class _Activity:
    """Threads the candidate left or started (sandbox/threads.py: OS threads against a baseline taken after
    the runtime is warmed up, before the import), and the device-activity profiler's warm-up
    (sandbox/activity.py). `armed` while the candidate is imported or called; each call's evidence goes into
    its header (`_run_call`), judged by evaluator/checks."""

    current: _Activity | None = None  # the installed one, read by `_run_call`

    def __init__(self) -> None:
        from kernelgenbench.sandbox.threads import ThreadWatch

        self.watch = ThreadWatch()

    @property
    def armed(self) -> bool:
        """Thread starts are recorded while armed."""
        return self.watch.armed

    @armed.setter
    def armed(self, value: bool) -> None:
        self.watch.armed = value

    def install(self) -> None:
        """Warm the runtime up, then take the thread baseline and watch thread starts."""
        from kernelgenbench.sandbox import activity, launches

        device = _warm_up()
        launches.watch_loaded_kernels()
        activity.warm_up(device)
        self.watch.install()
        self.watch.take_baseline()
        _Activity.current = self

    def evidence(self) -> list[str]:
        """Tampering marks: the watch itself undone (threads are judged per call from the header's "threads")."""
        marks = self.watch.broken()
        if _Activity.current is not self:
            marks.append("the worker's thread watch was replaced")
        return marks


def _warm_up() -> str:
    """Start the runtime's own threads (CPU pool, numpy's BLAS, device context and libraries) before the
    baseline; the device the worker runs on ('cpu' when Triton interprets)."""
    import torch

    (torch.ones(64, 64) @ torch.ones(64, 64)).sum()
    torch.ones(1 << 16).add_(1)
    try:
        import numpy

        numpy.ones((64, 64)) @ numpy.ones((64, 64))
    except ImportError:
        pass
    if os.environ.get("TRITON_INTERPRET") == "1" or not torch.cuda.is_available():
        return "cpu"
    device = f"cuda:{torch.cuda.current_device()}"
    # Kineto tears CUPTI down after each session by default and starts it (and its threads) again in the next:
    # keep it up, so its threads are the baseline's and each call's session starts fast.
    os.environ.setdefault("TEARDOWN_CUPTI", "0")
    (torch.ones(64, 64, device=device) @ torch.ones(64, 64, device=device)).sum().item()
    try:
        from triton.runtime import driver

        driver.active.get_current_stream(driver.active.get_current_device())
    except Exception:  # noqa: BLE001 - a triton without this driver API: its threads start later, if any
        pass
    torch.cuda.synchronize()
    return device


def _import_candidate(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("kgb_candidate", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["kgb_candidate"] = module
    spec.loader.exec_module(module)
    return module


def _sync(device: str) -> None:
    kind = torch.device(device).type
    if kind != "cpu":
        getattr(torch, kind).synchronize()


def _type_name(cls: type) -> str:
    """'module.qualname' of a class, read through `type`'s own descriptors (a metaclass cannot intercept)."""
    mod, qual = _TYPE_MODULE(cls), _TYPE_QUALNAME(cls)
    name = f"{mod if _type(mod) is str else '?'}.{qual if _type(qual) is str else '?'}"
    return name + (" (another type under that name)" if name == "torch.Tensor" and cls is not _TENSOR else "")


def _leaf_meta(value: Any, storages: dict[int, str]) -> Leaf:
    """What the judge needs to know about one output leaf, read through accessors bound before the candidate
    was imported: nothing of the object's own (methods, properties, __class__) runs. Only an object whose
    type IS torch.Tensor is looked into; for any other the type is all that is reported."""
    cls = _type(value)
    if cls is not _TENSOR:
        return Leaf(type=_type_name(cls), plain=False, tensor_subclass=_issubclass(cls, _TENSOR_BASE))
    meta = {"type": _type_name(cls), "plain": True, "device": str(_T_DEVICE(value)), "layout": str(_T_LAYOUT(value)),
            "nested": bool(_T_NESTED(value))}
    try:
        ptr = _S_DATA_PTR(_T_STORAGE(value))
    except Exception:  # noqa: BLE001 - sparse, functional, lazy tensors: no storage the worker can read
        return Leaf(**meta, storage=False)
    return Leaf(**meta, storage=True, alias=storages.get(ptr) if _T_NUMEL(value) else None)


def _portable(value: Any, meta: Leaf, device_type: str) -> Any:
    """What may travel back for one output leaf: a plain strided tensor with data on the call's device type,
    a plain scalar, or None (the judge reads why from the leaf's metadata)."""
    if meta.plain:
        travels = (meta.storage and meta.layout == "torch.strided" and not meta.nested
                   and meta.device.split(":")[0] == device_type)
        return value if travels else None
    return value if value is None or _type(value) in (int, float, bool, complex, str) else None


def _structure(value: Any, depth: int = 0) -> str:
    """The nesting of a return value, '*' for a leaf: '[*,[*,*]]' (lists and tuples alike), read as `_flatten`
    reads it; at most MAX_LEAVES items in all ('...' after them)."""
    cls = _type(value)
    if not (_issubclass(cls, (list, tuple)) and depth < MAX_DEPTH):
        return "*"
    parts = []
    for i, v in enumerate((_LIST_ITER if _issubclass(cls, list) else _TUPLE_ITER)(value)):
        if i >= MAX_LEAVES:
            parts.append("...")
            break
        parts.append(_structure(v, depth + 1))
    return "[" + ",".join(parts) + "]"


def _has_tensor(value: Any) -> bool:
    return _type(value) is _TENSOR or (_type(value) is list and any(_has_tensor(v) for v in value))


def _portable_arg(value: Any, device_type: str) -> Any:
    """An argument as it may travel back: its plain tensors (in a list where it is one), anything else None.
    The candidate may have put its own objects into a list argument: those never travel."""
    if _type(value) is list:
        return [_portable_arg(v, device_type) for v in value]
    return _portable(value, _leaf_meta(value, {}), device_type) if _type(value) is _TENSOR else None


def _fingerprint_or_reason(fingerprint: Callable[..., str], value: Any, key: int) -> str:
    """The argument's fingerprint after the call; what the candidate left in it may not be readable."""
    try:
        return fingerprint(value, key)
    except Exception as exc:  # noqa: BLE001 - a differing value: the argument travels back and is judged
        return f"unreadable after the call: {_type_name(_type(exc))}"


def _hooks_left(modes_before: tuple[int, int]) -> list[str]:
    """What the candidate left that would run its code while the worker inspects and packs the outputs:
    torch function or dispatch modes still active, attributes of the tensor and storage classes replaced."""
    marks = []
    if _FN_MODES() > modes_before[0]:
        marks.append("a torch function mode was left active after the call")
    if _DISPATCH_MODES() > modes_before[1]:
        marks.append("a torch dispatch mode was left active after the call")
    return marks + _class_dicts_changed()


def _class_dicts_changed() -> list[str]:
    """Attributes of the tensor and storage classes replaced or added since the worker started."""
    marks = []
    for cls, snap in _CLASS_DICTS:
        now = _TYPE_DICT(cls)
        changed = sorted(str(k) for k in set(now) | set(snap) if now.get(k, MISSING) is not snap.get(k, MISSING))
        if changed:
            marks.append(f"{_type_name(cls)} attribute(s) replaced or added: {', '.join(changed[:8])}")
    return marks


def _modes_entered(modes_before: tuple[int, int]) -> list[str]:
    """Modes the import left on torch's stacks whose code is not torch's own: the worker's input draws,
    fingerprints and timing between calls go through them, so the candidate's code would run there, out of
    every call's recorders (it could compute the next answer while the inputs are drawn)."""
    marks = []
    for i in range(modes_before[0], _FN_MODES()):
        mode = _FN_MODE_AT(i)
        if _type(mode) not in _TORCH_FN_MODES:
            marks.append(f"a torch function mode ({_type_name(_type(mode))}) was left active after the import")
    if _DISPATCH_MODES() > modes_before[1]:
        marks.append("a torch dispatch mode was left active after the import")
    return marks


def _flatten(value: Any, depth: int = 0) -> list[Any]:
    """Leaves of nested lists and tuples (namedtuples too), iterated by list's and tuple's own C iterators:
    a container subclass's __iter__ or a lying __class__ never runs. Past MAX_DEPTH levels (a list that
    contains itself) the container is a leaf; past MAX_LEAVES leaves the rest is not collected."""
    cls = _type(value)
    if _issubclass(cls, (list, tuple)) and depth < MAX_DEPTH:
        out: list[Any] = []
        for v in (_LIST_ITER if _issubclass(cls, list) else _TUPLE_ITER)(value):
            out.extend(_flatten(v, depth + 1))
            if len(out) > MAX_LEAVES:
                return out[:MAX_LEAVES + 1]
        return out
    return [value]


class _LayoutMismatch(Exception):
    pass


def _refill(old: Any, new: Any, storage_bytes: Callable[[Any], Any]) -> Any:
    """`new`'s values written into `old`'s buffers (same addresses), its plain values kept; None unless every
    tensor's dtype, device, sizes, strides, offset and storage size match. `storage_bytes`: the worker's
    bound transfer.storage_bytes (never imported again by name after the candidate's import)."""
    pairs: list[tuple[Any, Any]] = []

    def walk(o: Any, n: Any) -> Any:
        if isinstance(n, torch.Tensor):
            same = _type(o) is _TENSOR and (o.dtype, o.device, o.shape, o.stride(), o.storage_offset(),
                                                     o.untyped_storage().nbytes()) == (
                n.dtype, n.device, n.shape, n.stride(), n.storage_offset(), n.untyped_storage().nbytes())
            if not same:
                raise _LayoutMismatch
            pairs.append((o, n))
            return o
        if isinstance(n, (list, tuple)):
            if type(o) is not type(n) or len(o) != len(n):
                raise _LayoutMismatch
            return type(n)(walk(a, b) for a, b in zip(o, n, strict=True))
        if isinstance(n, dict):
            if not isinstance(o, dict) or o.keys() != n.keys():
                raise _LayoutMismatch
            return {k: walk(o[k], n[k]) for k in n}
        return n

    try:
        merged = walk(old, new)
    except _LayoutMismatch:
        return None
    for o, n in pairs:  # whole storages: the bytes around a view (and poisoned outputs) come along
        storage_bytes(o).copy_(storage_bytes(n))
    # written as an in-place op writes it: a wrapper that caches what it made from an input (a weight repacked
    # once) checks the tensor's version counter (false-positive hunt 17: a stale repack served in round 1)
    _BUMP_VERSIONS(tuple(o for o, _ in pairs))
    return merged


def _workload(task: Any, workload_id: str) -> Any:
    return next(w for w in task.workloads if w.id == workload_id)


@dataclass(frozen=True)
class _Bound:
    """What per-call code uses, bound before the candidate is imported and passed along: never looked up by
    name again, so a replaced sys.modules entry or module attribute does not reach it (a replaced `__code__`
    does, and the tamper check, run as soon as the candidate's call returns, reports it)."""

    sealed_recorder: Callable[..., tuple[Any, Callable[[int], list[str]], Callable[[], bool]]]
    launch_counter: type
    split_call_args: Callable[..., Any]
    round_inputs: Callable[..., Any]
    make_args: Callable[..., Any]
    fingerprint: Callable[..., str]
    storage_bytes: Callable[[Any], Any]
    time_callable: Callable[..., Any]
    timing_config: type
    perf_counter: Callable[[], float]
    tampered: Callable[..., list[str]]
    session: type  # sandbox/activity.py's Session: one profiler session per call
    loaded_kernels: Callable[[], frozenset[str]]  # kernels Triton loaded in this process
    hooks: Any  # sandbox/hooks.py's InterpreterHooks: closed around every call (installed in the worker only)
    ledger: Any  # sandbox/ledger.py's WriteLedger: CPU storages' digests, kept for the worker's life
    kernel_rules: Any  # sandbox/kernel_rules.py's KernelRules: Triton's rule for kernel bodies, per launch
    memory: Any  # sandbox/launch_memory.py's LaunchMemory: the interpreter's loads and stores, per launch
    kernels: Any  # sandbox/interpreted_kernels.py's InterpretedKernels: the functions the interpreter runs
    rounds: dict  # per workload's shapes and scalars: the scalars its recorded calls handed to their launches
    foreign_kernels: Callable[[Any], list[str]]  # sandbox/dispatch_table.py: ops given a kernel from Python
    literals: set  # the numbers written in the candidate's source, read before its import (sandbox/scalars.py)
    made_before: dict  # storages earlier calls made, with their provenance as the last call left it (a workspace)
    made_origin: dict  # and as each was made (the origin a rewrite keeps: sandbox/dispatch.py `_written`)
    made_bytes: dict  # and their sizes (a pointer into one is that storage and an offset)
    generators: tuple  # the CUDA default generators, bound before the candidate's import (it could rebind the tuple)
    watch: Any  # sandbox/launch_watch.py's LaunchWatch: the candidate's code inside an interpreted launch


def _bind(watched: dict[str, tuple[Any, str]], *, cuda: bool = False) -> _Bound:
    """Import and bind every guard the worker uses per call (call before importing the candidate)."""
    from kernelgenbench.evaluator import timing
    from kernelgenbench.evaluator.inputs import make_args, round_inputs, split_call_args
    from kernelgenbench.evaluator.transfer import fingerprint, storage_bytes
    from kernelgenbench.sandbox.activity import Session
    from kernelgenbench.sandbox.dispatch import sealed_recorder
    from kernelgenbench.sandbox.dispatch_table import foreign_kernels
    from kernelgenbench.sandbox.hooks import InterpreterHooks
    from kernelgenbench.sandbox.interpreted_kernels import InterpretedKernels
    from kernelgenbench.sandbox.kernel_rules import KernelRules
    from kernelgenbench.sandbox.launch_memory import LaunchMemory
    from kernelgenbench.sandbox.launch_watch import LaunchWatch
    from kernelgenbench.sandbox.launches import LaunchCounter, loaded_kernels
    from kernelgenbench.sandbox.ledger import WriteLedger

    ledger = WriteLedger()
    memory = LaunchMemory(ledger)
    watched.update(memory.install())
    kernels = InterpretedKernels()
    watched.update(kernels.install())
    rules = KernelRules()
    watch = LaunchWatch(lambda: [*kernels.codes(), *rules.codes()])
    watched.update(watch.install())
    b = _Bound(sealed_recorder, LaunchCounter, split_call_args, round_inputs, make_args, fingerprint,
               storage_bytes, timing.time_callable, timing.TimingConfig, time.perf_counter, _no_marks, Session,
               loaded_kernels, InterpreterHooks(), ledger, rules, memory, kernels, {}, foreign_kernels,
               set(), {}, {}, {}, _cuda_generators() if cuda else (), watch)
    # The bound references are watched too (rebinding one needs memory access, but leaves a mark).
    watched.update({f"worker bound {f.name}": (b, f.name) for f in fields(b) if f.name != "tampered"})
    object.__setattr__(b, "tampered", guard(watched))  # frozen: set once, here (main checks it stays)
    return b


def _no_marks(skip: tuple[str, ...] = ()) -> list[str]:
    return []


# Replaced by the launch counter for the duration of every call: not tampering while it is active.
_LAUNCH_RUNS = ("triton.JITFunction.run", "triton.InterpretedFunction.run")
_OFF_STACK = "the dispatch recorder was not on top of the mode stack at the end of the call (popped or disabled)"


def _cuda_generators() -> tuple[Any, ...]:
    """The CUDA default generators of a worker on a CUDA device (its device set already): their states as each
    call begins tell a Philox state a wrapper reads with get_state from host-made data
    (DispatchRecorder._generator_state)."""
    torch.cuda.init()
    return tuple(torch.cuda.default_generators)


def _seed_generators(generators: tuple[Any, ...], seed: int | None, nth: int = 0) -> None:
    """Each generator seeded from the round's seed and how many calls of the same shapes came before (`nth`: a
    random op called again on the same round's inputs must draw anew, rounds.py `_draws_again`), its Philox
    offset back at 0: a random op's wrapper hands its kernel the offset it reads (FlagGems'
    philox_backend_seed_offset), which would otherwise grow from round to round and read as a host value that
    changed; the seed, a float-sized int, still changes, and so do the draws."""
    if seed is None:
        return
    for i, g in enumerate(generators):
        _G_MANUAL_SEED(g, (1 << 62) | ((seed * _GOLDEN + nth * _GOLDEN_2 + i) & ((1 << 62) - 1)))


_GOLDEN = 0x9E3779B97F4A7C15  # an odd 64-bit multiplier: nearby round seeds give unrelated generator seeds
_GOLDEN_2 = 0x632BE59BD9B4E019  # another, for the call's place among those of its shapes


def _generator_states(generators: tuple[Any, ...]) -> tuple[tuple[int, int], ...]:
    """(seed, Philox offset) of each generator now, read with torch's own C methods."""
    out = []
    for g in generators:
        state = _G_GET_STATE(g)
        if _T_NUMEL(state) * _T_ELEMENT_SIZE(state) == 16:
            out.append(struct.unpack("<Qq", ctypes.string_at(_S_DATA_PTR(_T_STORAGE(state)), 16)))
    return tuple(out)


def _draw(task: Any, spec: dict[str, Any], device: str, b: _Bound) -> tuple[dict[str, Any], dict[str, str]]:
    """A round's inputs drawn here, as the evaluator drew them, and their fingerprints under its key."""
    args = b.round_inputs(task, _workload(task, spec["workload_id"]), seed=int(spec["seed"]), device=device)
    return args, {k: b.fingerprint(v, int(spec["key"])) for k, v in args.items()}


def _run_call(fn: Callable[..., Any], task: Any, args: dict[str, Any], device: str,
              send: Callable[[Any], bytes], key: int | None = None,
              before: dict[str, str] | None = None, *, b: _Bound, hold: list[Any] | None = None,
              seed: int | None = None) -> tuple[CallReport, bytes | None]:
    """Call the candidate once under the recorders; the call's report and the outputs' transfer.

    With a fingerprint `key` and the inputs' fingerprints `before` the call (inputs drawn here), an argument
    the task does not declare mutable travels back only if its fingerprint changed; otherwise every tensor
    argument does. Its "tampering" marks come from checks run the moment the candidate's call returns:
    the evaluator's functions, the recorder's integrity and its place on the mode stack. What the call returned
    goes into `hold`, for the caller to drop only after the report is sent: a finalizer on it (weakref.finalize
    runs the moment the last reference goes) must find no report to rewrite. The device's random generators
    start the call seeded from the round's `seed` (`_seed_generators`).
    """
    storages: dict[int, str] = {}
    spans: dict[int, int] = {}
    inputs = []
    for name, v in args.items():
        for t in _flatten(v):
            inputs.append(t)
            if _type(t) is _TENSOR and _T_NUMEL(t):
                storages.setdefault(_S_DATA_PTR(_T_STORAGE(t)), name)
                spans[_S_DATA_PTR(_T_STORAGE(t))] = _S_NBYTES(_T_STORAGE(t))
    modes_before = (_FN_MODES(), _DISPATCH_MODES())
    shape = call_shape(args)  # before the call: the candidate may restride what it was handed
    handed = _handed(task, args)
    pos, kw = b.split_call_args(task, args)
    b.ledger.refresh(inputs)  # what ran between calls (timed calls, the evaluator's refill) is no call's
    rec, sealed, on_top = b.sealed_recorder(b.ledger)
    counter = b.launch_counter(rec, b.kernel_rules, b.memory, b.kernels, b.hooks.quiet, b.watch)
    older = b.ledger.live() - storages.keys()
    held = _one_element_values(inputs)
    rec.carry(b.made_before, b.made_origin)
    _seed_generators(b.generators, seed, len(b.rounds.get(shape, ())))
    rec.generator_states = _generator_states(b.generators)
    for log in (rec.scalars, counter.scalars):  # which storage a tensor handed over is
        log.places(storages, older, rec.made_storages, values=held, literals=b.literals, before=rec.carried,
                   spans={**{p: n for p, n in b.made_bytes.items() if p in rec.carried}, **spans})
    b.memory.take()  # accesses outside this call's launches are no call's
    marks: list[str] = []
    watch = _Activity.current.watch if _Activity.current is not None else None
    at_start = watch.begin() if watch is not None else {}
    if watch is not None:
        watch.started.clear()
    session = b.session(device, counter.range_name)  # one profiler session per call (sandbox/activity.py)
    if hold is not None:  # what the recorders hold of the candidate's dies after the send, not before it
        hold.append((rec, counter, session))
    try:
        with session:
            t0 = b.perf_counter()  # the call and its device work, not the profiler's start and stop
            with counter.active(), rec:
                b.hooks.open()
                try:
                    ret = fn(*pos, **kw)
                    if hold is not None:
                        hold.append(ret)
                finally:  # before any code the candidate could have replaced runs (a replacement may restore itself)
                    marks = b.hooks.close() + b.tampered(_LAUNCH_RUNS) + counter.displaced() \
                        + sealed(counter.ranges) + ([] if on_top() else [_OFF_STACK]) + _symbolic(rec.symbolic)
            _sync(device)
            elapsed = b.perf_counter() - t0
            marks += [f"an op the call ran has a kernel the candidate registered: {k}"
                      for k in b.foreign_kernels([*rec.ops, *rec.in_launch])]
            rec.closing(_flatten(ret) + inputs)
            _remember_workspaces(b.made_before, b.made_origin, rec)
            _remember_made(b.made_bytes, rec.made_bytes)
            # returned memory filled before the call (plain tensors only: reading a subclass runs its own code)
            counter.scalars.note_foreign(tuple(t for t in _flatten(ret) if _type(t) is _TENSOR))
            changed, values_changed, host_changed, where = _leaves_changed(b.rounds, shape, (counter.scalars, rec.scalars),
                                                                    compiled=counter.compile_s > 0 or counter.benchmarked,
                                                                    path=tuple(counter.paths), made=frozenset(rec.first_made))
    except BaseException as exc:  # noqa: BLE001 - everything the candidate raises is evidence, SystemExit included
        return CallReport(event="error", exc_type=f"{type(exc).__module__}.{type(exc).__qualname__}",
                          message=str(exc)[:500], traceback=_trace(exc), tampering=tuple(marks),
                          launches=dict(counter.launches), launch_ranges=counter.ranges, ops=dict(rec.ops),
                          ops_in_launch=dict(rec.in_launch), **_tallies(rec, counter), **_evidence(session, watch, at_start, b, rec.lifted)), None
    report = CallReport(event="result", elapsed_s=elapsed, compile_s=counter.compile_s, launches=dict(counter.launches),
                        launch_ranges=counter.ranges, ops=dict(rec.ops), ops_in_launch=dict(rec.in_launch),
                        **_tallies(rec, counter), launch_leaves_changed=changed, values_changed=values_changed,
                        host_changed=host_changed, changed_where=where,
                        tampering=tuple(marks),
                        returns_none=ret is None, **_evidence(session, watch, at_start, b, rec.lifted))
    return _pack_result(report, ret, task, args, storages, device, send, key, before, modes_before, b, handed)


def _symbolic(n: int) -> list[str]:
    """The mark for ops and launches handed a symbolic scalar (sandbox/dispatch.py `_SYMBOLIC`)."""
    return [f"{n} op(s) or launch(es) handed a torch.SymInt, SymFloat or SymBool: its node's Python code ran "
            "inside them, out of the recorders' sight"] if n else []


def _remember_workspaces(labels: dict[int, Any], origins: dict[int, Any], rec: Any) -> None:
    """Keep what the call made or an op of it rewrote, with its provenance as the call's ops left it, and what it
    made, with its provenance as made, for later calls: a workspace cached at a first call is the same place when
    a later call hands it over (ScalarLog._place), not made in one round and older in the next. As the ops left
    it: a status buffer made with `empty` and zeroed once (`zero_`) is labelled by the zeroing in the call that
    made it, and so in the next (it was labelled by the `empty` there: false-positive hunt 15, apex-style flags)."""
    if len(labels) + len(rec.first_made) + len(rec.rewritten) > _MADE_KEPT:
        labels.clear()
        origins.clear()
    labels.update(rec.first_made)
    labels.update(rec.rewritten)  # a launch's writes are no op's: its provenance holds the storage's own label
    origins.update(rec.first_made)


def _remember_made(before: dict[int, Any], made: dict[int, Any]) -> None:
    """Keep what the call made (each storage's size) for later calls, at most _MADE_KEPT storages."""
    if len(before) + len(made) > _MADE_KEPT:
        before.clear()
    before.update(made)


_MADE_KEPT = 1 << 16  # storages remembered across calls, at most


def _one_element_values(inputs: list[Any]) -> list[float]:
    """What the call's one-element floating-point inputs hold, read before it begins (not through anything of
    the candidate's: the exact tensor type's own item)."""
    return [_T_ITEM(t) for t in inputs if _type(t) is _TENSOR and _T_NUMEL(t) == 1 and _T_DTYPE(t).is_floating_point]


def call_shape(args: dict[str, Any]) -> tuple:
    """The call's arguments as far as they shape it (sizes, strides, dtypes, scalars), taken before the call."""
    return tuple((k, _shape_key(v)) for k, v in args.items())


def _leaves_changed(rounds: dict, shape: tuple, found: tuple[ScalarLog, ...], *, compiled: bool = False,
                    path: tuple[str, ...] = (), made: frozenset[int] = frozenset()) -> tuple[int, int, int, tuple[str, ...]]:
    """How many of the scalars this call handed its launches and ops (small ints, string chunks, bools, dtypes,
    tensor places) the last recorded call with the same shapes and scalars (`call_shape`: the workload's previous
    round) did not hand at the same place: shape-made scalars repeat, values computed from the data do not.
    Second, the same count over every value but tensor places, host-made data's first values included (what a
    tiny output is judged by); third, over host-made data's first values alone (a small output's); fourth, the
    first of the second count's values, described (of the first count's where the second has none). The call's
    logs are kept for the next round.

    A call that compiled a kernel (`compiled`) is compared with none after it that did not: a library's first
    launch goes through Triton's JIT entry and later ones through its own cache of compiled kernels (FlagGems'
    LibEntry calls the compiled kernel's launcher: grid, stream, function handle, metadata), so the two log
    different arguments by design. An autotuner that benchmarked configs (FlagGems' LibTuner on a new key, with
    Triton's cache warm: nothing compiled) makes such a first call too: 195 launches through the JIT entry, and
    one through LibEntry's cache in the next round (mean.dim on an H200, session 31). So is a shape's first
    round for its second alone, where it made a storage (`made`) that the second used (`_first_made_kept`).
    Calls that both compiled are compared, as are calls that both did not.

    Where the two calls launched the same kernels the same number of times but entered some launches another
    way (`path`, sandbox/launches.py: Triton's JIT entry, `kernel[grid]`, the compiled launcher called directly),
    the launches' logs are left out and the ops' and host data's compared: a library's first call for a key of
    its own cache goes through the JIT even where Triton's cache holds the kernel already (no compile), and the
    next calls the launcher directly, which logs nothing (FlagGems' LibEntry: 19 false positives on an H100,
    session 27). Any other difference in the launches (a count that changes: red team 30) is compared whole."""
    history = rounds.setdefault(shape, [])
    counts = tuple({name: len(calls) for name, calls in log.calls.items()} for log in found)
    before = _partner(history, counts, path)
    history.append(_Round(found, compiled, path, counts, made))
    if before is None or ((before.compiled or _first_made_kept(history, found)) and not compiled
                          and before is history[-2]):
        return 0, 0, 0, ()
    pairs = list(zip(found, before.found, strict=True))
    if _entered_otherwise(path, before.path):
        pairs = pairs[1:]  # found[0] is the launches' log
    values = sum(now.changed(prev, _PLACES) for now, prev in pairs)
    changed = sum(now.changed(prev, _HOST_ONLY, weigh=True) for now, prev in pairs)
    skip = _PLACES if values else _HOST_ONLY  # what the verdict will name: the tiny output's count, or the share's
    where = tuple(d for now, prev in pairs for d in now.differences(prev, skip))[:3] if changed or values else ()
    return changed, values, sum(now.changed(prev, only="host") for now, prev in pairs), where


class _Round(NamedTuple):
    """One recorded call of a shape, as the round comparison keeps it (`_leaves_changed`)."""

    found: tuple  # its scalar logs: the launches', the ops'
    compiled: bool  # it compiled a kernel or benchmarked configs
    path: tuple  # how each launch was entered
    counts: tuple  # each log's calls by name
    made: frozenset  # the storages it made


def _first_made_kept(history: list, found: tuple[ScalarLog, ...]) -> bool:
    """Whether this is a shape's second round, and its first made a storage this one used (a workspace, a status
    buffer, a table it caches): that first round ran its setup ops (`empty`, `zero_`) among its others, which
    this one does not (false-positive hunt 15). Only the second round: a storage each round makes for the next
    would otherwise leave every round unjudged; the third is compared with the second."""
    return len(history) == 2 and any(not log.kept_used.isdisjoint(history[0].made) for log in found)


def _partner(history: list, counts: tuple[dict[str, int], ...], path: tuple[str, ...]) -> tuple | None:
    """The earlier round of the same shapes to compare with: the last one, unless it launched other kernels or
    ran other ops (counts by name) or entered its launches otherwise, and an older one did all alike; that one
    then, compiled or not (the same entries log the same arguments). A cache keyed by address misses on a round
    in fresh buffers and hits on one in the last round's (`_Serving.keep`): fresh rounds are compared with each
    other. A call unlike every earlier one is compared with the last, as a whole. `counts`: each log's calls
    by name, as kept with every round."""
    if not history:
        return None
    return next((older for older in reversed(history) if older.path == path and older.counts == counts), history[-1])


_ENTRIES = frozenset({"jit", "grid", "direct"})  # the ways into a compiled launch (sandbox/launches.py)


def _entered_otherwise(path: tuple[str, ...], before: tuple[str, ...]) -> bool:
    """The same launches, some entered another way (a compiled kernel's JIT entry, then its launcher)."""
    return path != before and len(path) == len(before) and all(
        a == b or (a in _ENTRIES and b in _ENTRIES) for a, b in zip(path, before, strict=True))


# Which storage a tensor is (an input, one made in the call, an older one by address) is left out of the
# second count: a workspace cached at the first call is "made" there and "kept" after. Its offset, sizes and
# strides are counted (red team 17 handed a host value to a kernel as the storage offset of a view).
_HOST_ONLY, _PLACES = frozenset({"host"}), frozenset({"place"})


def _shape_key(value: Any, depth: int = 0) -> Any:
    """An argument as far as it shapes a call: a tensor's sizes, strides and dtype (not its values), a list's
    members, any other value's repr."""
    if _type(value) is _TENSOR:
        return tuple(_T_SIZE(value)), tuple(_T_STRIDE(value)), str(_T_DTYPE(value))
    if _type(value) in (list, tuple) and depth < 4:
        return tuple(_shape_key(v, depth + 1) for v in value)
    return repr(value)[:200]


def _tallies(rec: Any, counter: Any) -> dict[str, Any]:
    """What host values went into tensors and launches, as CallReport fields."""
    return {"host_built": rec.host_built, "host_built_bytes": rec.host_bytes, "small_writes": rec.small_writes,
            "foreign_bytes": sum(counter.scalars.foreign.values()),
            "launch_floats": len(counter.floats | rec.scalars.floats), "kernel_rule_breaks": tuple(counter.rule_breaks),
            **dict(zip(("stray_accesses", "stray_first", "launch_unseen_writes", "launch_unseen_first"),
                       counter.memory.take(), strict=True)), "seed_draws": dict(rec.seed_draws), "unseen_writes": rec.unseen,
            "host_made": tuple(HostMade(dtype=d, data=base64.b64encode(b).decode()) for d, b in rec.host_made)}


class _Written:
    """A declared-mutable tensor as handed over: the object, and a second tensor with the storage, sizes,
    strides and offset it had. What is judged is what the caller sees through its own tensor: the view it
    handed over. Only where the call resized the object (an `out=` argument of another shape, as torch resizes
    it) is the object judged as the call left it. Re-pointing the object at another storage (set_), or
    restriding it on the same one (red team 22: `as_strided_` onto a transposed or unused region, K and V
    views swapped), leaves the caller's view to be judged."""

    __slots__ = ("alias", "empty", "obj", "storage")

    def __init__(self, obj: Any) -> None:
        self.obj, self.alias, self.storage = obj, _T_DETACH(obj), _S_IMPL(_T_STORAGE(obj))
        self.empty = not _S_NBYTES(_T_STORAGE(obj))  # handed an empty buffer: only the object can hold a result

    def judged(self) -> Any:
        """The view handed over, or the object where the call resized it on the storage it was handed."""
        try:
            kept = _S_IMPL(_T_STORAGE(self.obj)) == self.storage
            resized = tuple(_T_SIZE(self.obj)) != tuple(_T_SIZE(self.alias))
        except Exception:  # noqa: BLE001 - no storage left to read: the object is judged (and fails there)
            return self.obj
        if self.empty:  # not one the call emptied (red team 23: set_ elsewhere, then the caller's freed)
            return self.obj
        return self.obj if kept and resized else self.alias


def _handed(task: Any, args: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments as handed over, kept where the candidate cannot rebind them: what is fingerprinted
    and sent back after the call (`_judged`). A list argument is copied (emptying or refilling the list it got
    leaves the members it was handed judged); an argument it may not write is kept as a second tensor on the
    same storage (Tensor.set_ can re-point the one it got at a pristine copy after writing the original); a
    declared-mutable tensor as a `_Written`."""
    mutable = {p.name for p in task.mutable_params}

    def keep(v: Any, writable: bool) -> Any:
        if _type(v) is list:
            return [keep(x, writable) for x in _LIST_ITER(v)]
        if _type(v) is not _TENSOR:
            return v
        try:
            return _Written(v) if writable else _T_DETACH(v)
        except Exception:  # noqa: BLE001 - a tensor without storage (never drawn by the evaluator): as it is
            return v

    with _NO_FN_MODES(), _NO_DISPATCH_MODES():  # no mode left by the import sees (or answers) the detach
        return {k: keep(v, k in mutable) for k, v in args.items()}


def _judged(value: Any) -> Any:
    """A kept argument (`_handed`) as it is judged after the call."""
    if _type(value) is list:
        return [_judged(x) for x in value]
    return value.judged() if _type(value) is _Written else value


def _pack_result(report: CallReport, ret: Any, task: Any, args: dict[str, Any], storages: dict[int, str],
                 device: str, send: Callable[[Any], bytes], key: int | None, before: dict[str, str] | None,
                 modes_before: tuple[int, int], b: _Bound, handed: dict[str, Any] | None = None,
                 ) -> tuple[CallReport, bytes]:
    """The outputs' metadata into `report` and the outputs and written arguments packed for the evaluator.

    Only plain tensors with data on the call's device type travel; nothing of a candidate's own object runs
    here. Packing runs under a dispatch recorder: its "ops" are the packer's own unless the candidate hooked
    it. A result always carries a payload (b"null" when nothing could travel), so the evaluator never waits.
    """
    hooks = tuple(_hooks_left(modes_before))
    if hooks:  # looking into the outputs would run the candidate's code: nothing is read or packed
        return replaced(report, packing=Packing(hooks=hooks)), b"null"
    # Modes active since before the call (torch.set_default_device at import is one) stay out of packing.
    try:
        with _NO_FN_MODES(), _NO_DISPATCH_MODES():
            return _read_and_pack(report, ret, task, args, storages, device, send, key, before, b, handed)
    except Exception as exc:  # noqa: BLE001 - whatever was returned, the worker answers instead of dying
        return replaced(report, packing=Packing(hooks=()), unreadable=f"{_type_name(_type(exc))}: {exc}"[:300]), b"null"


def _read_and_pack(report: CallReport, ret: Any, task: Any, args: dict[str, Any], storages: dict[int, str],
                   device: str, send: Callable[[Any], bytes], key: int | None,
                   before: dict[str, str] | None, b: _Bound, handed: dict[str, Any] | None) -> tuple[CallReport, bytes]:
    """`args` as the call left them (their sizes), `handed` as they were handed over (`_handed`: what is
    fingerprinted and sent back; None, outside a call, sends `args`)."""
    handed = args if handed is None else {k: _judged(v) for k, v in handed.items()}
    leaves = _flatten(ret) if ret is not None else []
    metas = tuple(_leaf_meta(v, storages) for v in leaves)
    found: dict[str, Any] = {"leaves": metas, "sizes": _sizes(args, leaves),
                             "structure": _structure(ret) if ret is not None else ""}
    dev_type = str(torch.device(device).type)
    t1 = b.perf_counter()
    sent_args = {k: _portable_arg(v, dev_type) if _has_tensor(v) else None for k, v in handed.items()}
    if key is not None and before is not None:
        mutable = {p.name for p in task.mutable_params}
        after = {k: _fingerprint_or_reason(b.fingerprint, v, key) for k, v in handed.items() if k not in mutable}
        found["inputs_after"] = after
        sent_args = {k: v for k, v in sent_args.items() if k in mutable or after.get(k) != before.get(k)}
    # One transfer for outputs and arguments: an output that aliases an argument still does on the other side.
    payload = {"returns": [_portable(v, m, dev_type) for v, m in zip(leaves, metas, strict=True)], "args": sent_args}
    rec = b.sealed_recorder()[0]
    try:
        with rec:
            sent = send(payload)
        found["send_s"] = b.perf_counter() - t1
    except Exception as exc:  # noqa: BLE001 - the worker's own failure to pack: reported, never fatal
        found["transfer_error"] = f"{_type_name(_type(exc))}: {exc}"[:300]
        sent = b"null"
    tensors = sum(_type(x) is _TENSOR for x in _flatten([payload["returns"], list(sent_args.values())]))
    return replaced(report, packing=Packing(hooks=(), ops=dict(rec.ops), tensors=tensors), **found), sent


def _evidence(session: Any, watch: Any, at_start: dict[int, float], b: _Bound, lifted: int = 0) -> dict[str, Any]:
    """The device-activity profile and the threads of one call (after the call), as CallReport fields;
    `lifted`: the dispatch recorder's lifts onto a device (activity.Session.report)."""
    out: dict[str, Any] = {"profile": Profile.from_dict(session.report(b.loaded_kernels(), lifted))}
    if watch is not None:
        out["threads"] = Threads.from_dict(watch.call_report(at_start))
    return out


def _tensor_size(value: Any) -> tuple[int, int] | None:
    """(numel, bytes) over the plain tensors in a value (None when it holds none), read through accessors
    bound before the import."""
    tensors = [t for t in _flatten(value) if _type(t) is _TENSOR]
    if not tensors:
        return None
    return sum(_T_NUMEL(t) for t in tensors), sum(_T_NUMEL(t) * _T_ELEMENT_SIZE(t) for t in tensors)


def _sizes(args: dict[str, Any], leaves: list[Any]) -> Sizes:
    """Sizes of what the call was given and produced: per returned leaf and per tensor argument (after the
    call: an `out=` argument may have been resized)."""
    sized = {k: _tensor_size(v) for k, v in args.items()}
    return Sizes(returns=tuple(_tensor_size(v) for v in leaves), args={k: v for k, v in sized.items() if v is not None})


def _time(fn: Callable[..., Any], task: Any, msg: dict[str, Any], device: str, b: _Bound,
          hold: list[Any] | None = None) -> Timing:
    """The candidate timed on fresh argument sets; every set made goes into `hold` (dropped after the send)."""
    workload = _workload(task, msg["workload_id"])
    seeds = msg["seeds"]
    kept = hold if hold is not None else []

    def arg_sets(i: int) -> tuple[list[Any], dict[str, Any]]:
        made = b.split_call_args(task, b.make_args(task, workload, seed=seeds[i % len(seeds)], device=device))
        kept.append(made)
        return made

    config = b.timing_config(**msg.get("config", {}))
    return b.time_callable(fn, arg_sets, device=device, config=config)


@dataclass(frozen=True)
class _Serving:
    """The serving loop's state and handlers, bound before the candidate is imported: after the import they
    are reached as attributes of this object, never as module names the candidate could rebind."""

    conn: Any
    task: Any
    device: str
    b: _Bound
    activity: _Activity
    tampered: Callable[..., list[str]]
    send_msg: Callable[..., None]
    send: Callable[[Any], bytes]  # outputs packed into the outbox arena, described as JSON
    receive: Callable[[Any], dict[str, Any]]  # arguments the evaluator sent, read from the inbox arena
    run_call: Callable[..., tuple[CallReport, bytes | None]]
    draw_inputs: Callable[..., tuple[dict[str, Any], dict[str, str]]]
    refill: Callable[..., Any]
    time_call: Callable[..., Timing]
    on_call: Callable[..., None]
    on_time: Callable[..., None]
    keep: list[Any] = field(default_factory=list)  # the previous round's buffers: fresh addresses unless reused


_SERVING_DICT = _Serving.__dict__["__dict__"].__get__  # a serving state's own dict, by the descriptor made with it
_NEW = object.__new__


def main(conn: Any, setup: dict[str, Any]) -> None:
    """Worker entry point (run in a fresh process): import the candidate, then serve call/time requests."""
    log = _redirect_output(setup["log_path"])
    device = setup["device"]
    # Read by triton at import (spawned workers) and at decoration time; CPU means the interpreter.
    os.environ["TRITON_INTERPRET"] = "1" if torch.device(device).type == "cpu" else "0"
    activity = _Activity()
    try:
        s = _set_up(conn, setup, device, activity)
    except BaseException as exc:  # noqa: BLE001 - report the setup failure instead of dying silently
        _send(conn, Raised(event="setup_error", exc_type=f"{type(exc).__module__}.{type(exc).__qualname__}",
                           message=str(exc)[:500], traceback=_trace(exc)))
        return
    serve = _serve  # bound before the candidate is imported, as everything used after the import is
    state = tuple(_SERVING_DICT(s).items())  # immutable: each request is served by a fresh copy of it
    fn = _load(s, setup)
    if fn is not None:
        serve(state, fn, log)


def _set_up(conn: Any, setup: dict[str, Any], device: str, activity: _Activity) -> _Serving:
    """Isolation, memory cap, arenas, the task and every guard, bound (call before importing the candidate)."""
    # Before anything of the candidate runs (and before CUDA is initialised: this may fork).
    from kernelgenbench.sandbox.isolation import enter

    # The candidate's code must stay readable wherever it lies when the worker's scratch folders are replaced.
    iso = {**(setup.get("isolation") or {}), "keep": [os.path.dirname(os.path.abspath(setup["code_path"]))]}
    _send(conn, IsolationReport(event="isolation", level=enter(iso, conn)["level"]))
    _cap_memory(device, int(setup.get("memory_cap_bytes", 0)), float(setup.get("device_memory_fraction", 0.9)))
    from kernelgenbench.dataset.record import Task
    from kernelgenbench.evaluator.transfer import move_tree, pack, receive_arenas, unpack

    arenas = receive_arenas(conn)  # sent by the evaluator before anything else
    # The evaluator validated the record and sent its typed task's dict; the schema (and the sources a
    # registry adds to it) is the evaluator's business, not the candidate's process's.
    task = Task.from_dict(setup["record"], validate=False)
    if torch.device(device).type == "cuda":
        torch.cuda.set_device(torch.device(device).index or 0)  # "cuda" alone means the first device
    else:
        from kernelgenbench.sandbox.interpreter_fixes import interpreter_as_a_device

        interpreter_as_a_device()  # bf16 rounding, libdevice, float arguments: as the devices do
    route_inductor_allocators()  # generated code binds them at its import
    launch_args.bind()  # triton's own dtype classes, read before the candidate can add any
    watched = watched_functions()
    activity.install()
    watched["threading.Thread.start"] = (threading.Thread, "start")
    # Everything used from here on is bound now, before the candidate is imported: locals, not names.
    b = _bind(watched, cuda=torch.device(device).type == "cuda")
    b.hooks.install()

    def send(obj: Any) -> bytes:
        return dump_bytes(pack(obj, arenas.outbox))

    def receive(raw: Any) -> dict[str, Any]:
        return move_tree(unpack(raw, arenas.inbox), device)

    return _Serving(conn, task, device, b, activity, b.tampered, _send, send, receive, _run_call, _draw, _refill,
                    _time, _on_call, _on_time)


def _load(s: _Serving, setup: dict[str, Any]) -> Callable[..., Any] | None:
    """Import the candidate and say so; its entry point, or None when there is none or the import tampered."""
    s.activity.armed = True
    s.b.hooks.open()
    modes = (_FN_MODES(), _DISPATCH_MODES())
    s.b.literals.update(source_numbers(setup["code_path"]))
    s.b.watch.watch_file(setup["code_path"])
    try:
        module = _import_candidate(setup["code_path"])
    except BaseException as exc:  # noqa: BLE001 - import errors, syntax errors, SystemExit: all evidence
        s.send_msg(s.conn, Raised(event="import_error", exc_type=f"{type(exc).__module__}.{type(exc).__qualname__}",
                                  message=str(exc)[:500], traceback=_trace(exc)))
        return None
    s.activity.armed = False
    s.b.ledger.adopt_live()  # tables made at import are no call's host data
    s.b.literals.update(module_numbers(vars(module)))  # nor the numbers it holds then
    # A library may install hooks at import (a signal handler): they are put back, and only a refused audit hook
    # or record_function switch-off is evidence here.
    refused = [m for m in s.b.hooks.close() if "refused" in m]
    fn = getattr(module, setup["entry_point"], None)
    tamper = refused + s.tampered() + s.activity.evidence() + _modes_entered(modes) + _class_dicts_changed()
    s.send_msg(s.conn, Ready(event="ready", entry_point_found=callable(fn), tampering=tuple(tamper)))
    return fn if callable(fn) and not tamper else None


def _serve(state: tuple[tuple[str, Any], ...], fn: Callable[..., Any], log: Any) -> None:
    """Answer call and time requests until the evaluator says exit or closes the pipe. Each request gets a fresh
    `_Serving` made from the state taken before the import: a handler the candidate swaps in on one (red team
    18 reached `_on_call`'s `s` through a traceback's frames and replaced `send_msg`) is gone at the next."""
    while True:
        s = _NEW(_Serving)
        fresh = _SERVING_DICT(s)
        for k, v in state:
            fresh[k] = v
        try:
            msg = _RECV(s.conn)
        except EOFError:
            return
        op = msg.get("op")
        if op == "exit":
            return
        if op == "call":
            s.on_call(s, fn, msg)
        elif op == "time":
            s.on_time(s, fn, msg)
        log.flush()


def _on_call(s: _Serving, fn: Callable[..., Any], msg: dict[str, Any]) -> None:
    """One call: its inputs drawn here (or received), the candidate called, the report and outputs sent. What
    runs after the candidate's call is taken from `s` before it."""
    b, send_msg, conn, tampered, activity, keep = s.b, s.send_msg, s.conn, s.tampered, s.activity, s.keep
    t_in = b.perf_counter()
    # before the call too: a replacement left between calls would run in this one, a hook before it
    pre = b.hooks.close() + s.tampered()
    draw, before = msg.get("draw"), None
    if draw is not None:
        try:
            args, before = s.draw_inputs(s.task, draw, s.device, b)
        except Exception:  # noqa: BLE001 - the evaluator then sends the inputs instead (nothing to judge)
            send_msg(conn, DrawError(event="draw_error"), None, msg.get("nonce"))
            return
    else:
        args = s.receive(msg["args"])
    if msg.get("reuse") and keep:
        # This round runs in the previous round's buffers with new values, so a result cached by
        # address goes stale (and fails) instead of being served again.
        args = s.refill(keep[0], args, b.storage_bytes) or args
    t_in = b.perf_counter() - t_in
    activity.armed = True
    hold: list[Any] = [args, keep[:]]  # nothing of the candidate's dies (and runs a finalizer) until the send
    seed = draw["seed"] if draw is not None else msg.get("seed")
    report, payload = s.run_call(fn, s.task, args, s.device, s.send, key=None if draw is None else int(draw["key"]),
                                 before=before, b=b, hold=hold, seed=None if seed is None else int(seed))
    activity.armed = False
    marks = pre + list(report.tampering) + tampered() + activity.evidence()
    if b.tampered is not tampered or s.send_msg is not send_msg:
        marks.append("the worker's bound tamper check or sender was replaced")
    # the same mark seen before and after counts once
    report = replaced(report, receive_s=t_in, inputs_before=before, tampering=tuple(dict.fromkeys(marks)))
    send_msg(conn, report, payload, msg.get("nonce"))
    keep[:] = [args]
    hold.clear()


def _on_time(s: _Serving, fn: Callable[..., Any], msg: dict[str, Any]) -> None:
    """One timing request: the candidate timed on fresh argument sets; a failure is reported, not fatal."""
    send_msg, conn, tampered, b = s.send_msg, s.conn, s.tampered, s.b  # taken before the candidate runs
    try:
        pre = b.hooks.close() + tampered()
        b.hooks.open()
        hold: list[Any] = []
        try:
            result = s.time_call(fn, s.task, msg, s.device, b, hold)
        finally:
            post = b.hooks.close() + tampered()
        send_msg(conn, TimeReport(event="timing", timing=result, tampering=tuple(dict.fromkeys(pre + post))),
                 None, msg.get("nonce"))
        hold.clear()
    except BaseException as exc:  # noqa: BLE001 - a timing failure is reported, not fatal
        send_msg(conn, TimeReport(event="timing", timing=Timing(available=False,
                                                                reason=f"timing failed: {exc!r}"[:500])),
                 None, msg.get("nonce"))
