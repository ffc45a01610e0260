"""Record the ATen ops dispatched while the candidate runs (inside its worker).

Ops dispatched inside a Triton launch (the interpreter copies arguments to the host and back with aten
ops) are counted apart; the evaluator judges them on their own (`kernelgenbench.evaluator.dispatch_guard`
decides what counts as compute).

A dispatch mode can be switched off from inside the process it watches, so `sealed_recorder` pairs it with
checks the worker runs when the call returns: the recorder still on top of the mode stack, its counters
unchanged except by itself (a keyed tally it keeps where no attribute names it), not left paused. They make
the simple attacks leave a mark (clearing or resetting the counts, pausing it, popping it); code that walks
memory (gc, frames, closure cells) can still reach the key. The C++-level profiler (sandbox/activity.py),
evidence judged outside this process and OS isolation are the real defence.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import secrets
import struct
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch
from torch._library import custom_ops as _custom_ops
from torch.utils._python_dispatch import TorchDispatchMode

from kernelgenbench.sandbox.protocol import (
    GENERATOR_STATE,
    GENERATOR_STEP,
    HOST_KEEP_BYTES,
    SEED_BUMPS,
    SEED_ELEMS,
    SEED_MAX,
    SEED_OPS,
    SMALL_WRITE,
)
from kernelgenbench.sandbox.scalars import ScalarLog

_MASK = (1 << 64) - 1
# the `note` kinds for host-made tensor elements and bytes, small writes, and host-made tensors kept
HOST, HOST_BYTES, SMALL, KEPT, SEED, UNSEEN, SCALARS = -2, -3, -4, -5, -6, -7, -8
_BASE = torch._C.TensorBase  # its methods, not torch.Tensor's (a candidate may replace those)
_T_NUMEL, _T_ELEMENT_SIZE, _T_DATA_PTR = _BASE.numel, _BASE.element_size, _BASE.data_ptr
_T_SIZE, _T_STRIDE = _BASE.size, _BASE.stride
_T_CONTIGUOUS, _T_DEVICE = _BASE.is_contiguous, _BASE.__dict__["device"].__get__
_T_DTYPE = _BASE.__dict__["dtype"].__get__
_PLAIN = frozenset({torch.Tensor, torch.nn.Parameter})  # the types whose ops run torch's own kernels
# Symbolic scalars: an op converts one by calling its node's methods, which may be any Python (red team 42's
# node wrote the answer through numpy inside fill_). Eager calls on real tensors never carry one (the
# compilers that make them are forbidden to candidates).
_SYMBOLIC = frozenset({torch.SymInt, torch.SymFloat, torch.SymBool})
_GC_ENABLED, _GC_DISABLE, _GC_ENABLE = gc.isenabled, gc.disable, gc.enable
_INPLACE_VIEW = torch.Tag.inplace_view
_OFFSET_DTYPES = frozenset({torch.int64, torch.int32})  # a generator state's seed and offset words
# Ops that wrap host data (a Python list, a numpy array, a scalar) in a tensor: torch.tensor, as_tensor,
# from_numpy and Tensor.new_tensor all end in one of them.
# Ops that make a tensor holding a value they are given: a few elements of one are a value written back.
_VALUE_FACTORIES = ("aten::full", "aten::new_full", "aten::scalar_tensor")
_FROM_HOST = frozenset({"aten::lift_fresh", "aten::lift_fresh_copy", "aten::lift"})
# In-place ops that replace what a storage holds by a value or a copy (sandbox/scalars.py: a made storage's place)
_REWRITES = ("aten::fill_", "aten::zero_", "aten::copy_")
# Ops that hand out memory without writing it. On the host, memory the candidate freed comes back from malloc
# with its bytes still in it: an answer written into a bytearray and freed reappears in the next
# `torch.empty`, and the write ledger would take it as that op's (red team 24). Such memory is filled with
# all-ones bytes (NaN, -1) before anything else sees it; a kernel that reads memory it never wrote then gets
# NaN here, as it gets stale data on a device.
_UNWRITTEN = ("aten::empty", "aten::new_empty", "aten::_empty")
_GROWS = frozenset({"aten::resize_", "aten::resize_as_"})
_OPDEFS = _custom_ops.OPDEFS  # qualified name -> CustomOpDef, weakly (torch.library.custom_op; bound at import)
_S_NBYTES_OF, _S_DEVICE_OF = torch._C.StorageBase.nbytes, torch._C.StorageBase.__dict__["device"].__get__
_HAS_KERNEL = torch._C._dispatch_has_kernel_for_dispatch_key
_DECOMPOSE = torch._ops.OpOverload.decompose  # bound at import, as every torch function the recorder calls


@functools.cache
def _composite(name: str) -> bool:
    """An op torch implements from others (CompositeImplicitAutograd: broadcast_tensors, atleast_2d, reshape)."""
    try:
        return bool(_HAS_KERNEL(name, "CompositeImplicitAutograd"))
    except RuntimeError:
        return False


def _no_note(name: str, in_launch: int, n: int = 0, kept: Any = None) -> None:
    return None


@functools.cache
def _written_args(func: Any) -> tuple[tuple[int | None, str], ...]:
    """(position, name) of the arguments an op's schema says it writes (self of `fill_`, `out` of `full.out`);
    a keyword-only argument has no position."""
    out: list[tuple[int | None, str]] = []
    positional = 0
    for a in func._schema.arguments:
        if a.alias_info is not None and a.alias_info.is_write:
            out.append((None if a.kwarg_only else positional, a.name))
        positional += 0 if a.kwarg_only else 1
    return tuple(out)


_issubclass, _type, _LIST, _TUPLE, _DICT = issubclass, type, list, tuple, dict


def _is_tensor(x: Any) -> bool:
    """A tensor, judged by the immutable C base class (a candidate may rebind torch.Tensor during the call)."""
    return _issubclass(_type(x), _BASE)


_STORAGE_BASE = torch._C.StorageBase
_T_UNTYPED, _S_PTR = _BASE.untyped_storage, _STORAGE_BASE.data_ptr


def _is_storage(x: Any) -> bool:
    return _issubclass(_type(x), _STORAGE_BASE)


def _storage_ptr(x: Any) -> int:
    """The address of a tensor's or storage's memory (0 without one: a meta or wrapper tensor)."""
    try:
        return _S_PTR(x if _is_storage(x) else _T_UNTYPED(x))
    except (RuntimeError, NotImplementedError):
        return 0


def _custom_impl(func: Any, args: tuple, kwargs: Mapping | None) -> Callable[..., Any] | None:
    """The Python function behind an op made with torch.library.custom_op (triton_op makes one too) for the device
    of its first tensor argument (`register_kernel("cuda")`), or None."""
    opdef = _OPDEFS.get(f"{getattr(func, 'namespace', '')}::{getattr(func, '_opname', '')}")
    if opdef is None:
        return None
    first = next((t for t in _leaves((args, kwargs)) if _is_tensor(t)), None)
    fns = getattr(opdef, "_backend_fns", None)
    fns = fns if isinstance(fns, dict) else {}
    impl = (fns.get(_T_DEVICE(first).type) if first is not None else None) or fns.get(None) \
        or getattr(opdef, "_init_fn", None)
    return impl if callable(impl) else None


def _host_extent(x: Any) -> tuple[int, int]:
    """(address, bytes) of a tensor's CPU storage; (0, 0) for any other."""
    if not _is_tensor(x):
        return 0, 0
    try:
        storage = _T_UNTYPED(x)
        return (_S_PTR(storage), _S_NBYTES_OF(storage)) if _S_DEVICE_OF(storage).type == "cpu" else (0, 0)
    except (RuntimeError, NotImplementedError):
        return 0, 0


def _blank(made: list[Any], kept: int = 0) -> None:
    """Fill the host memory an op just handed out unwritten: whole new storages, or what a resize added past the
    `kept` bytes it had (grown in place or moved, its old bytes stay)."""
    for t in made:
        ptr, nbytes = _host_extent(t)
        if ptr and nbytes > kept:
            ctypes.memset(ptr + kept, 0xFF, nbytes - kept)


def _leaves(tree: Any, depth: int = 0) -> list[Any]:
    """The leaves of nested lists, tuples and dicts (an op's arguments and outputs), by the recorder's own walk:
    torch's pytree helpers are looked up by name on every call, and a candidate may blank them."""
    cls = _type(tree)
    if depth > 16 or not (_issubclass(cls, (_LIST, _TUPLE)) or _issubclass(cls, _DICT)):
        return [tree]
    items = _DICT.values(tree) if _issubclass(cls, _DICT) else tree
    return [leaf for item in items for leaf in _leaves(item, depth + 1)]


def _written_values(func: Any, args: tuple, kwargs: Mapping | None) -> list[Any]:
    """The arguments an op's schema says it writes, as passed."""
    return [args[i] if isinstance(i, int) and i < len(args) else (kwargs or {}).get(n) for i, n in _written_args(func)]


def _reach(t: Any) -> int:
    """How many distinct elements of memory a tensor can address: its elements, or fewer where strides overlap
    (a one-element slice expanded to 9 with stride 0 writes one element, however many it shows)."""
    n = _T_NUMEL(t)
    if n == 0:
        return 0
    try:
        span = 1 + sum((size - 1) * abs(stride) for size, stride in zip(_T_SIZE(t), _T_STRIDE(t), strict=True))
    except RuntimeError:  # no strides (sparse, nested): its elements
        return n
    return min(n, span)


def _holds_tensor(tree: Any) -> bool:
    return any(_is_tensor(x) for x in _leaves(tree))


class DispatchRecorder(TorchDispatchMode):
    """A dispatch mode counting every aten op by overload name; `paused` > 0 inside Triton launches.

    `note(name, in_launch)` hears every op, `note("", -1)` every pause (one per launch),
    `note("", HOST, elements)`, `note("", HOST_BYTES, bytes)` every tensor made from host data, and
    `note("", SMALL, 1)` every small write, `note("", UNSEEN, 1)` every storage the write ledger found
    written with no op or launch (sandbox/ledger.py; given one, it is checked around every op and launch)."""

    def __init__(self, note: Callable[..., None] = _no_note, ledger: Any = None) -> None:
        super().__init__()
        self.ops: Counter[str] = Counter()
        self.views: set[str] = set()
        self.in_launch: Counter[str] = Counter()
        self.host_built = 0  # elements of tensors made from host data (inside launches too: the interpreter
        self.host_bytes = 0  # makes none, and a kernel body may call Python that does)
        self.small_writes = 0  # ops that wrote into a tensor of at most SMALL_WRITE elements (see _small_write)
        self.host_made: list[tuple[str, bytes]] = []  # (dtype, bytes) of host-made tensors, HOST_KEEP_BYTES in all
        self.seed_draws: Counter[str] = Counter()  # random draws of at most SEED_ELEMS elements: a kernel's seed
        self.unseen = 0  # storages written with no op or launch, or on memory torch did not allocate
        # torch.tensor(data, device=...) onto a device: each converts on the host below the Python key (aten::to),
        # which the profiler sees and this mode does not (activity.Session.report leaves that many out)
        self.lifted = 0
        self.symbolic = 0  # ops handed a symbolic scalar (_SYMBOLIC): its node's code ran inside the op
        # the storages the call's ops made, on any device (a new storage, not one of the op's arguments): a launch
        # handed any other that is no input reads memory made before the call (sandbox/scalars.py: `foreign`).
        # Each maps to how its content was last made (`_provenance`): which of several tensors made in the call
        # an op reads is a value where their contents differ by host values (red team 31 picked one of 256
        # `full(..., b)` per byte of the answer), and repeats from round to round where they do not (a workspace
        # cached at the first call shifts every later storage's order, so the order is no identity).
        self.made_storages: dict[int, tuple[Any, ...]] = {}
        self.first_made: dict[int, tuple[Any, ...]] = {}  # each one's provenance as it was made (kept across calls)
        self.made_bytes: dict[int, int] = {}  # and its size
        # storages earlier calls made (a workspace cached at the first call), each with its provenance, which
        # starts as it was made and follows this call's writes as a made storage's does (`carry`)
        self.carried: dict[int, tuple[Any, ...]] = {}
        # the storages made or carried that an op rewrote whole, with the provenance it left (kept across calls as
        # their label: a launch's writes are left out, as its provenance holds the storage's own label)
        self.rewritten: dict[int, tuple[Any, ...]] = {}
        # how many storages the call made with each provenance so far: equal provenances are told apart by their
        # order among themselves (red team 37 handed one of two `zeros(n)` per bit of the answer), which a
        # workspace cached at the first call shifts only where it was made exactly as a later tensor is
        self._same: Counter[tuple[Any, ...]] = Counter()
        # (seed, Philox offset) of each CUDA generator of the call's device as the call began (`generator_states`)
        self.generator_states: tuple[tuple[int, int], ...] = ()
        self._origin: dict[int, tuple[Any, ...]] = {}  # the carried storages' provenance as made
        # the scalars handed to every op that is no view (a fill's value, a full's size, a tensor argument's place):
        # a value made from the data reaches memory this way (fills on overlapping windows), so they are logged
        # as a launch's are
        self.scalars = ScalarLog()
        self._ledger = ledger
        self._kept = 0
        self._paused = 0
        self._note = note

    @property
    def paused(self) -> int:
        """Launch depth: ops dispatched while it is above 0 are counted in `in_launch`."""
        return self._paused

    @paused.setter
    def paused(self, value: int) -> None:
        was, self._paused = self._paused, value
        if value > was:  # one per launch the launch counter wraps; any other is someone else pausing it
            self._note("", -1)

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Mapping | None = None) -> Any:
        name = str(func.name())  # 'aten::add.Tensor'
        impl = None if name.startswith("aten::") else _custom_impl(func, args, kwargs)
        if impl is not None:
            # An op the candidate made with torch.library.custom_op or triton_op (vLLM and torch's documented way
            # to wrap Triton kernels) runs its Python function. Called as the op, it would run below this mode,
            # out of its sight; run here with the mode entered again, its ops and launches are the call's (as
            # torch's FunctionalTensorMode decomposes a triton_op).
            with self:
                return impl(*args, **(kwargs or {}))
        if name.startswith("aten::") and _composite(name):
            # Autograd breaks such an op into its parts before any mode sees it; below autograd (a custom op's
            # function run above, torch.inference_mode) it arrives whole, and its name would read as compute. Its
            # parts are recorded instead, as autograd would have dispatched them (as torch's own modes decompose).
            with self:
                out = _DECOMPOSE(func, *args, **(kwargs or {}))
            if out is not NotImplemented:
                return out
        if not name.startswith("aten::") and not _holds_tensor((args, kwargs)):
            out = func(*args, **(kwargs or {}))
            if not _holds_tensor(out):
                # No tensor in or out (a library's version probe, torchvision::_cuda_version): nothing is computed
                # on data here, and any aten op it runs inside reaches the C++-level profiler's record.
                return out
            self._count(func, name)
            return out
        self._count(func, name)
        # A view reads and writes no data (only a storage first met there is news); inside a launch the launch is
        # the writer (launch_starts/_ends). What lift_fresh wraps is host data by definition (counted below).
        view = getattr(func, "is_view", False)
        rewrite = not view and bool(args) and name.startswith(_REWRITES) and _is_tensor(args[0])
        enabled = _GC_ENABLED()
        _GC_DISABLE()  # no finalizer runs between the ledger's check and its digest (red team 41)
        try:
            out, made, provenance = self._run(func, name, types, args, kwargs, view, rewrite)
        finally:
            if enabled:
                _GC_ENABLE()
        if not view and not self._paused:
            self._log_scalars(name, args, kwargs)
        if rewrite:  # now what a copy's source was, or a fill's value (logged above as it was before)
            self._rewritten(_storage_ptr(args[0]), provenance)
        if not self._paused and (name.startswith(SEED_OPS) or (
                name.startswith(SEED_BUMPS) and made and all(_T_DTYPE(t) in _OFFSET_DTYPES for t in made))):
            self._seed(name, made)
        if self._small_write(func, name, args, kwargs) or (
                name.startswith(_VALUE_FACTORIES) and any(_T_NUMEL(t) <= SMALL_WRITE for t in made)):
            self.small_writes += 1
            self._note("", SMALL, 1)
        if name in _FROM_HOST:
            self.lifted += sum(_T_DEVICE(t).type != "cpu" for t in made)
            self._built(sum(map(_T_NUMEL, made)), sum(_T_NUMEL(t) * _T_ELEMENT_SIZE(t) for t in made))
            self._keep(made)
        return out

    def _run(self, func: Any, name: str, types: Any, args: tuple, kwargs: Mapping | None, view: bool,
             rewrite: bool) -> tuple[Any, list[torch.Tensor], tuple[Any, ...]]:
        """The op itself between the ledger's check of what it is handed and its digest of what it wrote or made;
        its outputs, the tensors among them, and the provenance of what it made or rewrote."""
        ledger, leaves = None if self._paused else self._ledger, _leaves((args, kwargs))
        if ledger is not None and name not in _FROM_HOST:
            self.took_host(ledger.check_new(leaves) if view else ledger.check(leaves))
        kept = _host_extent(args[0])[1] if name in _GROWS and args else None
        # before the op: an argument grown in place (resize_) comes back on a new storage, which the op made; and
        # what it is handed, as it is before it runs (the provenance of what it makes or rewrites)
        given = set() if name in _FROM_HOST else {_storage_ptr(t) for t in leaves if _is_tensor(t) or _is_storage(t)}
        provenance = self._provenance(name, args[1:] if rewrite else args, kwargs)
        # The arguments' storages are held until the digest: an op that drops the last reference to one (set_
        # re-pointing a tensor) frees it inside the window, and a weakref callback or a from_numpy deleter run
        # there is the candidate's code (red team 43 wrote the answer from one). Freed after, its write is found.
        held = [_T_UNTYPED(t) for t in leaves if _type(t) in _PLAIN]
        out = func(*args, **(kwargs or {}))
        made = [t for t in _leaves(out) if _is_tensor(t)]
        if name.startswith(_UNWRITTEN):
            _blank(made)
        elif kept is not None:
            _blank(made, kept)
        if made and (not view or name in _FROM_HOST):  # torch.tensor(data) makes its storage, then lifts it
            self._made(made, given, self._host_provenance(made) if name in _FROM_HOST else provenance)
        # A tensor subclass with its own __torch_dispatch__ among the arguments ran its handler as this op, with
        # this mode off (red team 41 built the answer there from Python values), as a symbolic scalar's node
        # runs its code: what the op wrote or made is not a known writer's, and the ledger finds it at its next
        # check.
        symbolic = any(_type(v) in _SYMBOLIC for v in leaves)
        self.symbolic += symbolic
        # An in-place view op (set_, as_strided_) writes no data: nothing it leaves is its write (a resize makes
        # memory, filled above).
        restride = name not in _GROWS and _INPLACE_VIEW in getattr(func, "tags", ())
        if (ledger is not None and (not view or name in _FROM_HOST) and not symbolic and not restride
                and not any(t not in _PLAIN for t in types)):
            ledger.record([*made, *_written_values(func, args, kwargs)])
        del held
        return out, made, provenance

    def _made(self, made: list[torch.Tensor], given: set[int], provenance: tuple[Any, ...]) -> None:
        """Keep the storages of an op's outputs that none of its arguments had before it ran (in place, set_ and
        out= ops return an argument's storage), with how their content was made."""
        for i, t in enumerate(made):
            p = _storage_ptr(t)
            if p not in given:  # which of the op's outputs it is, too (a sort's values and indices)
                how = (*provenance, i)
                self._same[how] += 1
                self.made_storages[p] = self.first_made[p] = (*how, self._same[how])
                self.carried.pop(p, None)
                self.rewritten.pop(p, None)
                if p:  # a host-made table may point into it
                    self.made_bytes[p] = _S_NBYTES_OF(t if _is_storage(t) else _T_UNTYPED(t))
                    self.scalars.note_span(p, self.made_bytes[p])

    def carry(self, before: dict[int, tuple[Any, ...]], origins: dict[int, tuple[Any, ...]]) -> None:
        """Storages earlier calls made, with their provenance as the last call left them, and as made (the worker
        keeps them across calls)."""
        self.carried, self._origin = dict(before), origins

    def _rewritten(self, ptr: int, provenance: tuple[Any, ...]) -> None:
        """A storage made in the call (or an earlier one) filled or copied into whole by an op: its content is
        that op's now."""
        label = self._written(ptr, provenance) if not self._paused else None
        if label is not None:
            self.rewritten[ptr] = label

    def _written(self, ptr: int, provenance: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """`ptr`'s new label where it is a storage made in the call or carried: `provenance` and its origin."""
        # which storage it is stays part of it: two made alike and rewritten alike are still two (red team 38
        # zeroed both of red team 37's zeros(n) tables)
        origin = self.first_made.get(ptr) or self._origin.get(ptr)
        label = provenance if origin is None else (*provenance, origin)
        known = [k for k in (self.made_storages, self.carried) if ptr in k]
        for k in known:
            k[ptr] = label
        return label if known else None

    def _provenance(self, name: str, args: tuple, kwargs: Mapping | None) -> tuple[Any, ...]:
        """How an op makes its output's content: its name and everything it is handed (a fill's value, a size,
        which view of which storage a copy or clone reads), as ScalarLog.identity folds it; ("launch",) inside a
        launch."""
        return ("launch",) if self._paused else (name, self.scalars.identity(_leaves((args, kwargs))))

    def _host_provenance(self, made: list[torch.Tensor]) -> tuple[Any, ...]:
        """Host-made data's provenance: its words as the round comparison logs them (CPU, contiguous; a pointer
        into a storage of the call as which storage and the offset, ScalarLog.host_words), as far as it logs them
        (red team 36 put a fixed header in front of an answer when only the first 64 bytes were hashed)."""
        return ("host", hash(tuple(
            tuple(self.scalars.host_words(str(_T_DTYPE(t)).removeprefix("torch."), ctypes.string_at(
                _T_DATA_PTR(t), min(_T_NUMEL(t) * _T_ELEMENT_SIZE(t), HOST_KEEP_BYTES))))
            for t in made if _T_DEVICE(t).type == "cpu" and _T_CONTIGUOUS(t))))

    def _log_scalars(self, name: str, args: tuple, kwargs: Mapping | None) -> None:
        """The op's scalar arguments and its tensors' places in their storages (a one-element view picked by a
        host value is a fill's value too), logged by position (sandbox/scalars.py)."""
        self.scalars.start(name)
        self._note("", SCALARS, self.scalars.add(_leaves((args, kwargs))))

    def _built(self, elements: int, nbytes: int) -> None:
        """Host-made data of this many elements and bytes, counted and noted."""
        self.host_built += elements
        self.host_bytes += nbytes
        self._note("", HOST, elements)
        self._note("", HOST_BYTES, nbytes)

    def _seed(self, name: str, drawn: list[torch.Tensor]) -> None:
        """A random draw of at most SEED_ELEMS elements, the first SEED_MAX of a call, is a kernel's seed; its
        values are kept as host data all the same (`randint(w, w + 1)` draws the one value `w` it is given)."""
        if sum(self.seed_draws.values()) >= SEED_MAX or any(_T_NUMEL(t) > SEED_ELEMS for t in drawn):
            return
        self.seed_draws[name] += 1
        self._note("", SEED, 1)
        self._keep(drawn)

    def _keep(self, made: list[torch.Tensor]) -> None:
        """The bytes of host-made CPU tensors, read from memory (no op: nothing for any recorder to see),
        while they fit the budget."""
        for t in made:
            nbytes = _T_NUMEL(t) * _T_ELEMENT_SIZE(t)
            if _T_DEVICE(t).type != "cpu" or not _T_CONTIGUOUS(t):
                continue
            self._keep_bytes(str(t.dtype).removeprefix("torch."), ctypes.string_at(_T_DATA_PTR(t), nbytes) if nbytes else b"")

    def _keep_bytes(self, dtype: str, data: bytes) -> None:
        # Its first values by position too, compared with the previous round's (an answer changes, a table not).
        self._note("", SCALARS, self.scalars.add_host(dtype, data))
        if self._kept + len(data) > HOST_KEEP_BYTES:
            return
        kept = (dtype, data)
        self.host_made.append(kept)
        self._kept += len(data)
        self._note("", KEPT, 1, kept)

    def took_host(self, found: list[Any]) -> None:
        """Storages the write ledger found written with no op or launch (`ledger.Found`): host-made data, but a
        generator's state read as a seed (`_generator_state`)."""
        for f in found:
            if self._generator_state(f):
                continue
            self.unseen += 1
            self._note("", UNSEEN, 1)
            self._built(f.elements, f.nbytes)
            if f.data is not None:
                self._keep_bytes(f.dtype, f.data)

    def _generator_state(self, f: Any) -> bool:
        """Whether `f` is the call's first read of a CUDA generator's state (protocol.GENERATOR_STATE): kept as a
        seed (its bytes compared by the round comparison like a draw's), not as host-made data; its storage is
        one the call made, so the ops that read it (`int(state[1])`) hand the same place in every round, not an
        address that differs."""
        if (f.data is None or f.nbytes != 16 or self.seed_draws[GENERATOR_STATE]
                or sum(self.seed_draws.values()) >= SEED_MAX):
            return False
        seed, offset = struct.unpack("<Qq", f.data)
        if not any(seed == s and 0 <= offset - o < GENERATOR_STEP for s, o in self.generator_states):
            return False
        self.seed_draws[GENERATOR_STATE] += 1
        self._note("", SEED, 1)
        self._keep_bytes(f.dtype, f.data)
        if f.ptr:
            self.made_storages[f.ptr] = self.first_made[f.ptr] = (GENERATOR_STATE,)
        return True

    def launch_starts(self, values: list[Any]) -> None:
        """Before a Triton launch (given its arguments): every storage written with no op since its last writer.
        A symbolic scalar among the arguments would run its node's code inside the launch (where every write
        is the launch's)."""
        leaves = _leaves(values)  # a tensor in a tuple argument too (red team 44 handed its answer so)
        self.symbolic += any(_type(v) in _SYMBOLIC for v in leaves)
        if self._ledger is not None:
            self.took_host(self._ledger.check_all() + self._ledger.check(leaves))

    def launch_ends(self, values: list[Any]) -> None:
        """After a Triton launch: it wrote its arguments, and maybe any storage through a pointer table; a storage
        made in the call that it was handed holds what a launch with its host values wrote. A storage it moved
        is not among those: no kernel re-points a storage, code a kernel body ran under the interpreter did; nor
        is an argument's storage the ledger never saw (each was digested as the launch started): one re-pointed
        inside the launch to memory made out of sight (red team 49: `out.set_` onto a storage of host bytes)."""
        leaves = _leaves(values)
        if self._ledger is not None:
            self.took_host(self._ledger.check_new(leaves) + self._ledger.refresh(leaves))
        provenance = ("launch", self.scalars.identity(values))  # what it was handed, before it wrote
        for i, t in enumerate(leaves):  # and which of its arguments a storage was (red team 34: 16 tables, one launch)
            if _is_tensor(t):
                self._written(_storage_ptr(t), (*provenance, i))

    @contextlib.contextmanager
    def host_code(self, *, mid_launch: bool = False) -> Iterator[None]:
        """Candidate code a launch runs on the host (a grid callable, a pre-run hook, a compile-time function) is
        judged as the call's own: its ops recorded outside the launch, and storages it wrote with no op found
        when it returns. `mid_launch`: the launch's programs ran before it, and their writes are the launch's."""
        depth, self._paused = self._paused, 0  # the attribute, not the setter: no pause is counted
        if mid_launch and self._ledger is not None:
            self.took_host(self._ledger.refresh())
        try:
            yield
        finally:
            self._paused = depth
            if self._ledger is not None:
                self.took_host(self._ledger.check_all())

    def closing(self, values: list[Any]) -> None:
        """At the call's end (given its outputs and arguments): every storage written with no op since."""
        if self._ledger is not None:
            self.took_host(self._ledger.check_all() + self._ledger.check(values))

    def _small_write(self, func: Any, name: str, args: tuple, kwargs: Mapping | None) -> bool:
        """Whether the op wrote into a tensor of at most SMALL_WRITE elements (`out[i] = v`, `.fill_(v)` on a
        one-element view, `torch.full((), v, out=...)`): how host values go back one at a time. Inside a
        launch the interpreter's own copies of each argument and re-pointing of its storage (aten::copy_,
        aten::set_) are not counted."""
        if self._paused and name.startswith(("aten::copy_", "aten::set_")):
            return False
        return any(_is_tensor(v) and _reach(v) <= SMALL_WRITE for v in _written_values(func, args, kwargs))

    def _count(self, func: Any, name: str) -> None:
        paused = 1 if self._paused else 0
        self._note(name, paused)
        if paused:
            self.in_launch[name] += 1
        else:
            self.ops[name] += 1
            if getattr(func, "is_view", False):
                self.views.add(name)


def sealed_recorder(ledger: Any = None) -> tuple[DispatchRecorder, Callable[[int], list[str]], Callable[[], bool]]:
    """A fresh recorder (with the worker's write ledger, if given), the check of its integrity after the call
    given the launches counted (marks; [] when intact), and whether it is on top of the dispatch mode stack
    now (ask at the end of the call)."""
    key, acc, pauses = secrets.randbits(64), 0, 0
    host = {HOST: 0, HOST_BYTES: 0, SMALL: 0, KEPT: 0, SEED: 0, UNSEEN: 0, SCALARS: 0}
    _hash, _len, _at = hash, torch._C._len_torch_dispatch_stack, torch._C._get_dispatch_stack_at

    def note(name: str, in_launch: int, n: int = 0, kept: Any = None) -> None:
        nonlocal acc, pauses
        if in_launch == KEPT:
            host[KEPT] = (host[KEPT] + _hash((key, kept))) & _MASK
        elif in_launch in host:
            host[in_launch] += n
        elif in_launch < 0:
            pauses += 1
        else:
            acc = (acc + _hash((key, in_launch, name))) & _MASK

    rec = DispatchRecorder(note, ledger)
    ops, in_launch, scalars, keys, cls = rec.ops, rec.in_launch, rec.scalars, frozenset(rec.__dict__), DispatchRecorder

    def on_top() -> bool:
        n = _len()
        return n > 0 and _at(n - 1) is rec

    def check(launches: int) -> list[str]:
        marks = []
        state = rec.__dict__
        if (state.get("_note") is not note or state.get("ops") is not ops or state.get("in_launch") is not in_launch
                or state.get("_ledger") is not ledger or state.get("scalars") is not scalars
                or frozenset(state) != keys or type(rec) is not cls):
            marks.append("the dispatch recorder's state was replaced during the call")
        total = 0
        for where, counts in ((0, ops), (1, in_launch)):
            for name, n in dict.items(counts):
                total = (total + n * _hash((key, where, name))) & _MASK
        tallies = (state.get("host_built"), state.get("host_bytes"), state.get("small_writes"),
                   sum(dict.values(state.get("seed_draws") or {})), state.get("unseen"))
        kept = sum(_hash((key, k)) for k in state.get("host_made") or ()) & _MASK
        logged = len(scalars.floats) + sum(len(c) for calls in dict.values(scalars.calls) for c in calls)
        if total != acc or tallies != (host[HOST], host[HOST_BYTES], host[SMALL], host[SEED], host[UNSEEN]) \
                or kept != host[KEPT] or logged != host[SCALARS]:
            marks.append("the dispatch recorder's counts were changed (cleared, reset or edited) during the call")
        if rec.__dict__.get("_paused"):
            marks.append("the dispatch recorder was left paused after the call")
        if pauses != launches:
            marks.append(f"the dispatch recorder was paused {pauses} time(s) for {launches} Triton launch(es)")
        return marks + _rules_over_recorder(cls)

    return rec, check, on_top


def _rules_over_recorder(cls: type) -> list[str]:
    """Custom ops given a rule for the recorder's mode (`register_torch_dispatch`): torch runs the rule in the
    mode's place, with the mode popped, so nothing it dispatches is recorded (red team 25)."""
    found = []
    for name, opdef in list(_OPDEFS.items()):  # a WeakValueDictionary
        rules = getattr(opdef, "_torch_dispatch_fns", None)
        if isinstance(rules, dict) and any(isinstance(k, type) and issubclass(cls, k) for k in tuple(rules)):
            found.append(name)
    return [f"custom op(s) given a rule that replaces the dispatch recorder: {', '.join(found[:4])}"] if found else []
