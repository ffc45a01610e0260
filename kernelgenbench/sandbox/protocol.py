"""What crosses the trust boundary: every message a worker sends the evaluator, as frozen dataclasses.

The worker builds these and sends `to_dict()` as JSON over its pipe (tensors travel apart, as raw bytes in
shared memory). The candidate shares the worker's process and can write to that pipe, so the evaluator
trusts nothing it reads there: `parse_message` rebuilds the typed message strictly (a key the type does
not name, a value of another type, a missing key without a default, a number out of range or not finite,
an event that was not asked for) and raises `ProtocolError` otherwise, which the evaluator turns into a
`tampering` verdict for that candidate.

A field is evidence only if the evaluator reads it; tests/test_sandbox_protocol.py checks that every field
here is read somewhere in kernelgenbench/evaluator, so nothing is collected that no judge looks at.
"""

from __future__ import annotations

import _json
import functools
import json
import math
import types
import typing
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Any, ClassVar, Literal, get_args, get_origin

from kernelgenbench.errors import KgbError

MAX_INT = (1 << 63) - 1  # no count, size or stream id the worker reports comes near it
REPLY_TO = "reply_to"  # the envelope key: the nonce of the evaluator's request a reply answers
HOST_KEEP_BYTES = 1 << 16  # host-made tensor data a report carries for the evaluator to compare (CallReport.host_made)
# A random draw this small is a kernel's seed (`torch.randint(0, 2**31, (1,)).item()`), not compute: too few
# values to carry an answer, and none taken from the inputs.
SEED_OPS = ("aten::randint", "aten::random_", "aten::rand", "aten::randn", "aten::uniform_", "aten::normal")
SEED_ELEMS = 2
SEED_MAX = 4  # seed draws a call may make; more are torch compute (a kernel draws one seed per call)
# In-place increments of an integer word of at most SEED_ELEMS elements: a Philox offset advanced in a copy of
# the generator's state (FlagGems' philox_backend_seed_offset: `c0, c1 = state.view(torch.int64); c1 += n`).
# They count among the SEED_MAX seed ops, and their values are kept as host data like a draw's.
SEED_BUMPS = ("aten::add_",)
# A CUDA generator's state read on the host with get_state (16 bytes: seed and Philox offset) is found with no op
# that made it: holding the seed the generator held when the call began and an offset less than GENERATOR_STEP
# past the offset then, the first one of a call is a seed too (FlagGems' philox_backend_seed_offset, exponential_
# on an H100: 16 bytes on a 10-element output read as 128 packed outcomes). Only the offset's step can carry
# bits, and only 32 of them.
GENERATOR_STATE = "generator.get_state"
GENERATOR_STEP = 1 << 32
SMALL_WRITE = 8  # elements: a write into a tensor this small is a few elements of an answer (CallReport.small_writes)
MAX_DEPTH = 64  # deeper JSON is junk (and json.loads would recurse without end)


class ProtocolError(KgbError, ValueError):
    """A worker's message that does not parse as the protocol says; the message names the first bad field."""


@dataclass(frozen=True)
class Message:
    """Base of every message: JSON out (`to_dict`), strictly parsed in (`from_dict`)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form the worker sends (tuples become lists)."""
        return _plain(self)

    @classmethod
    def from_dict(cls, data: Any, where: str = "") -> Any:
        """The message from its JSON form; ProtocolError at the first unknown, missing or mistyped key."""
        return _parse_dataclass(cls, data, where or cls.__name__)


# --- parts of a call's report ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kernel(Message):
    """One device kernel the profiler saw, by (name, stream); written whole into result rows."""

    name: str
    stream: int
    origin: Literal["triton", "library"]
    library: str
    count: int
    us: float


@dataclass(frozen=True)
class Memcpy(Message):
    """One host/device copy the profiler saw during the call."""

    kind: str  # HtoD, DtoH, DtoD, ...
    bytes: int


# In a Profile's cpu_op_parts: a Triton launch range recorded beneath an op's call (an op the candidate made with
# torch.library.custom_op or triton_op launches its kernels there).
LAUNCH_PART = "<triton launch>"
# The suffix of the profiler range around a launch's host code (a grid callable, a pre-run hook, a compile-time
# function): its ops are the call's own, not the launch's, though the launch range encloses them.
HOST_CODE = "_host"


@dataclass(frozen=True)
class Profile(Message):
    """The device-activity recorder's report of one call (sandbox/activity.py)."""

    available: bool
    reason: str
    expected: bool  # a session worked in this process before the candidate was imported
    device: str  # the device kind: "cpu", "cuda", ...
    cpu_ops: dict[str, int] = field(default_factory=dict)  # dispatcher ops outside Triton launches, all threads
    cpu_ops_in_launch: dict[str, int] = field(default_factory=dict)
    # per op name, each distinct set of ops recorded directly beneath one of its calls (a composite's parts)
    cpu_op_parts: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # per op outside aten among those, its overloads' schemas as the worker's registry has them (a library's op,
    # torchvision::_cuda_version, is not registered where the evaluator judges)
    op_schemas: dict[str, tuple[str, ...]] = field(default_factory=dict)
    launch_ranges: int = 0  # launch ranges the profiler saw
    kernels: tuple[Kernel, ...] = ()
    call_stream: int | None = None
    memcpy: tuple[Memcpy, ...] = ()


@dataclass(frozen=True)
class HostMade(Message):
    """A tensor made from host values during the call (torch.tensor(list) and kin), kept whole while small: the
    evaluator looks for a small output's values in it (evaluator/host_values.py)."""

    dtype: str  # 'float32', 'int64', ...
    data: str  # its bytes, base64


@dataclass(frozen=True)
class ThreadSeen(Message):
    """One OS thread not in the baseline, as /proc shows it: what it is and whether it worked."""

    name: str  # '<tid> <name>'
    python: bool  # a threading.Thread (it runs Python code)
    state: str  # /proc state letter at the call's end: R running, S sleeping, ...
    call_cpu_s: float  # CPU time it used during the call (since it started, for one started in the call)
    settle_cpu_s: float  # CPU time it used in a short window after the call returned


@dataclass(frozen=True)
class Threads(Message):
    """Threads not in the baseline taken before the import: alive at the call's start and end, started in it."""

    at_start: tuple[ThreadSeen, ...]
    at_end: tuple[ThreadSeen, ...]
    started: tuple[str, ...]


@dataclass(frozen=True)
class Packing(Message):
    """What happened while the worker read and packed the outputs: hooks the candidate left, ops dispatched."""

    hooks: tuple[str, ...]
    ops: dict[str, int] = field(default_factory=dict)
    tensors: int = 0  # plain tensors packed


@dataclass(frozen=True)
class Leaf(Message):
    """One output leaf as the worker saw it through accessors bound before the import (never by its name)."""

    type: str  # 'module.qualname' of its exact type
    plain: bool  # its type IS torch.Tensor; nothing below is read otherwise
    tensor_subclass: bool = False
    device: str = ""
    layout: str = ""
    nested: bool = False
    storage: bool = False  # a storage the worker could read
    alias: str | None = None  # the argument whose storage it shares


@dataclass(frozen=True)
class Sizes(Message):
    """[numel, bytes] per returned leaf (None: no tensor in it) and per tensor argument, after the call."""

    returns: tuple[tuple[int, int] | None, ...]
    args: dict[str, tuple[int, int]]


# --- messages ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IsolationReport(Message):
    """First message, before the candidate is imported: the isolation level the worker entered."""

    EVENTS: ClassVar[tuple[str, ...]] = ("isolation",)
    event: Literal["isolation"]
    level: str


@dataclass(frozen=True)
class Raised(Message):
    """The worker could not set up, or the candidate's import raised."""

    EVENTS: ClassVar[tuple[str, ...]] = ("setup_error", "import_error")
    event: Literal["setup_error", "import_error"]
    exc_type: str
    message: str
    traceback: str


@dataclass(frozen=True)
class Ready(Message):
    """The candidate is imported: whether it defines the entry point, and what the import tampered with."""

    EVENTS: ClassVar[tuple[str, ...]] = ("ready",)
    event: Literal["ready"]
    entry_point_found: bool
    tampering: tuple[str, ...]


@dataclass(frozen=True)
class DrawError(Message):
    """The worker could not draw a round's inputs itself; the evaluator sends them instead."""

    EVENTS: ClassVar[tuple[str, ...]] = ("draw_error",)
    event: Literal["draw_error"]


@dataclass(frozen=True)
class CallReport(Message):
    """One call of the candidate: what it ran and raised ("error") or returned ("result"); the judge's input."""

    EVENTS: ClassVar[tuple[str, ...]] = ("result", "error")
    event: Literal["result", "error"]
    tampering: tuple[str, ...]
    launches: dict[str, int]  # Triton launches by kernel name
    launch_ranges: int  # launch ranges the launch counter opened
    ops: dict[str, int]  # aten ops the dispatch recorder saw outside launches
    ops_in_launch: dict[str, int]
    profile: Profile
    threads: Threads | None = None
    host_built: int = 0  # elements of tensors made from host data (lists, numpy arrays)
    host_built_bytes: int = 0  # their bytes (an answer packed into a wider dtype has fewer elements)
    small_writes: int = 0  # ops that wrote into a tensor of at most SMALL_WRITE elements (an answer written back)
    # distinct floating-point values (or float-sized ints) among the arguments of the call's Triton launches,
    # and among the constants baked into its kernels that changed since their last launch
    launch_floats: int = 0
    # the other scalars handed to the call's launches (small ints, string chunks, baked or passed) that the same
    # workload's previous round did not hand them (sandbox/worker.py: shape-made scalars repeat)
    launch_leaves_changed: int = 0
    # the same over every scalar but tensor places, and over host-made data's first values: how an output under
    # a handful of elements is judged (a shape table repeats, an answer made on the host does not)
    values_changed: int = 0
    host_changed: int = 0  # of those, host-made data's values (pointer-like words aside): a small output's channel
    changed_where: tuple[str, ...] = ()  # the first of those values: which call, which scalar, from what to what
    # what the call's interpreted kernels name that no GPU compile allows (sandbox/kernel_rules.py)
    kernel_rule_breaks: tuple[str, ...] = ()
    # loads and stores of interpreted launches outside every tensor's memory, and the first of them
    # (sandbox/launch_memory.py)
    stray_accesses: int = 0
    stray_first: str = ""
    # bytes of those launches' storages written inside them by neither their kernels' stores nor recorded host code,
    # and the first of them (sandbox/launch_memory.py's shadow)
    launch_unseen_writes: int = 0
    launch_unseen_first: str = ""
    seed_draws: dict[str, int] = field(default_factory=dict)  # random ops of at most SEED_ELEMS elements
    # bytes of the storages the call's launches were handed, or it returned, that are neither an input nor made by
    # an op of the call: memory filled before the call (a table, a cached workspace, a pool of random values)
    foreign_bytes: int = 0
    host_made: tuple[HostMade, ...] = ()  # the first HOST_KEEP_BYTES of host-made tensor data, whole tensors
    # CPU storages written with no op or launch, or on memory torch did not allocate (sandbox/ledger.py);
    # their elements and bytes are in host_built and host_built_bytes, their data in host_made.
    unseen_writes: int = 0
    # Set by the evaluator from the outputs (evaluator/host_values.py), never taken from the worker: how many
    # elements of the small outputs hold values found in `host_made`.
    host_matched: int = 0
    receive_s: float = 0.0  # the worker's time drawing or receiving the inputs
    inputs_before: dict[str, str] | None = None  # fingerprints of inputs it drew, before the call
    # a call that raised
    exc_type: str = ""
    message: str = ""
    traceback: str = ""
    # a call that returned
    elapsed_s: float = 0.0
    compile_s: float = 0.0
    returns_none: bool = False
    packing: Packing | None = None
    leaves: tuple[Leaf, ...] = ()
    sizes: Sizes | None = None
    structure: str = ""  # the return value's nesting, '*' a leaf: '[*,[*,*]]'
    inputs_after: dict[str, str] | None = None
    send_s: float = 0.0
    transfer_error: str = ""  # the worker's own failure to pack the outputs
    unreadable: str = ""  # why the return value could not be read at all


@dataclass(frozen=True)
class Timing(Message):
    """Timing of one callable on one workload; times in microseconds (evaluator/timing.py measures it)."""

    available: bool
    method: str = ""
    time_us: float | None = None  # the headline: what speedups and speed of light use (see `statistic`)
    statistic: str = ""
    median_us: float | None = None
    iqr_us: float | None = None
    reps: int = 0
    span_median_us: float | None = None
    event_median_us: float | None = None
    graph_median_us: float | None = None
    launch_bound: bool = False
    streams: int = 0
    kernels_per_call: float = 0.0
    fresh_buffers: int = 0
    l2_flush_bytes: int = 0
    # the device kernels the timed calls ran (flushes aside): set against the checked calls' kernels in the
    # result row, since nothing records or compares a timed call (a fallback only when timed shows here)
    kernel_names: tuple[str, ...] = ()
    precision: dict[str, bool | int | float | str] = field(default_factory=dict)
    device: str = ""
    reason: str = ""


@dataclass(frozen=True)
class TimeReport(Message):
    """One timing request's answer: the timing (written whole into result rows) and any tampering seen."""

    EVENTS: ClassVar[tuple[str, ...]] = ("timing",)
    event: Literal["timing"]
    timing: Timing
    tampering: tuple[str, ...] = ()


MESSAGES: tuple[type[Message], ...] = (IsolationReport, Raised, Ready, DrawError, CallReport, TimeReport)
# Each message class's field names and the getter of its instances' own dict, taken as the classes are made.
_SPECS: dict[type, tuple[tuple[str, ...], Any]] = {
    cls: (tuple(f.name for f in fields(cls)), next(c.__dict__["__dict__"] for c in cls.__mro__ if "__dict__" in c.__dict__).__get__)
    for cls in [v for v in tuple(globals().values()) if isinstance(v, type) and issubclass(v, Message)]}
_BY_EVENT: dict[str, type[Message]] = {e: cls for cls in MESSAGES for e in cls.EVENTS}  # type: ignore[attr-defined]


# How a message becomes bytes in the worker, bound here, before any candidate code: between the tamper check
# and the pipe nothing may run that is looked up by name at use (red team 17 rewrote every report through
# `json._default_encoder` and `dataclasses` globals). The C encoder gets each argument it reads now; fields are
# read from each instance's own dict through the descriptor found at class creation (a property added to a
# class later shadows nothing here); containers are walked with the base types' own C methods.
def _refuse(value: Any) -> Any:
    raise TypeError(f"not JSON: {type(value).__name__}")


_C_ENCODE = _json.make_encoder(None, _refuse, _json.encode_basestring_ascii, None, ": ", ", ", False, False, True)
_JOIN, _STR_ENCODE, _DICT_ITEMS = "".join, str.encode, dict.items
_LIST_ITER, _TUPLE_ITER, _DICT_UPDATE, _NEW = list.__iter__, tuple.__iter__, dict.update, object.__new__
_issubclass, _type = issubclass, type


def _plain(value: Any) -> Any:
    """A message, its parts and containers as plain dicts and lists; scalars as they are."""
    cls = _type(value)
    spec = _SPECS.get(cls)
    if spec is not None:
        names, own = spec
        state = own(value)
        return {n: _plain(state[n]) for n in names}
    if _issubclass(cls, dict):
        return {k: _plain(v) for k, v in _DICT_ITEMS(value)}
    if _issubclass(cls, tuple):
        return [_plain(v) for v in _TUPLE_ITER(value)]
    if _issubclass(cls, list):
        return [_plain(v) for v in _LIST_ITER(value)]
    return value


def replaced(message: Message, **changes: Any) -> Any:
    """A copy of a frozen message with `changes` (`dataclasses.replace` with no __init__ and no lookup by name)."""
    cls = _type(message)
    names, own = _SPECS[cls]
    unknown = [k for k in changes if k not in names]
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {unknown[0]!r}")
    copy = _NEW(cls)
    state = own(copy)
    _DICT_UPDATE(state, own(message))
    _DICT_UPDATE(state, changes)
    return copy


def encode(message: Message, reply_to: int | None = None) -> bytes:
    """The message as the bytes the worker sends; `reply_to`: the nonce of the request it answers."""
    data = _plain(message)
    if reply_to is not None:
        data[REPLY_TO] = reply_to
    return dump_bytes(data)


def dump_bytes(value: Any) -> bytes:
    """Plain data (dicts, lists, tuples, scalars) as JSON bytes, through the encoder bound at import."""
    return _STR_ENCODE(_JOIN(_C_ENCODE(_plain(value), 0)))


def parse_message(raw: bytes, expect: tuple[str, ...] | None = None, reply_to: int | None = None) -> Message:
    """One message from the worker's bytes, strictly; `expect`: the events allowed now (None: any);
    `reply_to`: the nonce of the request it must answer (None: a message sent before any request)."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested thousands deep
        raise ProtocolError(f"not JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict) or not isinstance(data.get("event"), str):
        raise ProtocolError("not an object with a string 'event'")
    event = data["event"]
    cls = _BY_EVENT.get(event)
    if cls is None:
        raise ProtocolError(f"unknown event {event[:80]!r}")
    if expect is not None and event not in expect:
        raise ProtocolError(f"a {event!r} message where {' or '.join(map(repr, expect))} was due")
    if reply_to is not None:
        # A report written by the candidate ahead of the worker's, or the worker's own reply to an earlier
        # request left in the pipe behind a forged one, does not carry this request's nonce.
        if data.pop(REPLY_TO, None) != reply_to:
            raise ProtocolError(f"a {event!r} message that does not answer the request it came after")
    return cls.from_dict(data, event)


# --- strict parsing --------------------------------------------------------------------------------------


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _parse_dataclass(cls: type, data: Any, where: str) -> Any:
    if type(data) is not dict:
        raise ProtocolError(f"{where}: expected an object, got {_kind(data)}")
    hints = _hints(cls)
    names = [f.name for f in fields(cls)]
    unknown = sorted(str(k)[:80] for k in data if k not in names)
    if unknown:
        raise ProtocolError(f"{where}: unknown key(s) {', '.join(unknown[:5])}")
    values = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is MISSING and f.default_factory is MISSING:
                raise ProtocolError(f"{where}: missing key {f.name!r}")
            continue
        values[f.name] = _parse(data[f.name], hints[f.name], f"{where}.{f.name}", 0)
    return cls(**values)


def _parse(value: Any, tp: Any, where: str, depth: int) -> Any:
    """`value` (from json.loads) as type `tp`: bool, int, float, str, None, Literal, unions, tuple[X, ...],
    fixed tuples, dict[str, X] and protocol dataclasses."""
    if depth > MAX_DEPTH:
        raise ProtocolError(f"{where}: nested deeper than {MAX_DEPTH}")
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _parse_union(value, get_args(tp), where, depth)
    if origin is Literal:
        if type(value) is str and value in get_args(tp):
            return value
        raise ProtocolError(f"{where}: expected one of {get_args(tp)}, got {_kind(value)}")
    if origin is tuple:
        return _parse_tuple(value, get_args(tp), where, depth)
    if origin is dict:
        if type(value) is not dict:
            raise ProtocolError(f"{where}: expected an object, got {_kind(value)}")
        val_tp = get_args(tp)[1]
        return {k: _parse(v, val_tp, f"{where}[{k[:40]!r}]", depth + 1) for k, v in value.items()}
    if is_dataclass(tp):
        return _parse_dataclass(tp, value, where)  # type: ignore[arg-type]
    return _parse_scalar(value, tp, where)


def _parse_union(value: Any, arms: tuple[Any, ...], where: str, depth: int) -> Any:
    if value is None and type(None) in arms:
        return None
    errors = []
    for arm in arms:
        if arm is type(None):
            continue
        try:
            return _parse(value, arm, where, depth)
        except ProtocolError as exc:
            errors.append(str(exc))
    raise ProtocolError(errors[0] if len(errors) == 1 else f"{where}: {_kind(value)} fits none of {arms}")


def _parse_tuple(value: Any, args: tuple[Any, ...], where: str, depth: int) -> tuple[Any, ...]:
    if type(value) is not list:
        raise ProtocolError(f"{where}: expected a list, got {_kind(value)}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_parse(v, args[0], f"{where}[{i}]", depth + 1) for i, v in enumerate(value))
    if len(value) != len(args):
        raise ProtocolError(f"{where}: expected {len(args)} items, got {len(value)}")
    return tuple(_parse(v, a, f"{where}[{i}]", depth + 1) for i, (v, a) in enumerate(zip(value, args, strict=True)))


def _parse_scalar(value: Any, tp: Any, where: str) -> Any:
    if tp is bool and type(value) is bool:
        return value
    if tp is str and type(value) is str:
        return value
    if tp is int and type(value) is int:
        if abs(value) > MAX_INT:
            raise ProtocolError(f"{where}: integer out of range")
        return value
    if tp is float and type(value) in (int, float):
        if type(value) is int and abs(value) > MAX_INT:
            raise ProtocolError(f"{where}: number out of range")
        if not math.isfinite(value):
            raise ProtocolError(f"{where}: not a finite number")
        return float(value)
    raise ProtocolError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {_kind(value)}")


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)
