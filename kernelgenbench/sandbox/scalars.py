"""The scalars a value hands a Triton kernel or an aten op, read without running any of the candidate's code.

A kernel's arguments, the constants it reads and an op's non-tensor arguments are how numbers computed on the
host reach a result without a tensor being made from them. `leaves` walks a value and yields each scalar in it
in a fixed order (so a caller can key them by position) as (kind, value):

    number    a float (a float subclass, a numpy float) or an int as large as a float's bit pattern
    small     any other int
    bool      a bool (numpy's too)
    text      a chunk of _TEXT_CHUNK characters or bytes of a string, with its offset
    dtype     a torch or triton dtype, by name
    meta      a tensor's storage offset, sizes and strides
    store     a tensor's storage address (ScalarLog logs it as a "place": which input, made in the call, or
              an older one)
    code      a function's, class's or module's identity
    overflow  the count of scalars left unwalked past `limit` (last)

Every value is read through its base type's own code (`float.__float__`, `str.__getitem__`, `dict.values`,
numpy's C methods, torch's C base class): a subclass cannot answer anything but what it holds. Objects are
walked through their `__dict__` and `__slots__`, triton's constexpr, dtypes and tensor descriptors included.
"""

from __future__ import annotations

import bisect
import collections
import functools
import itertools
import struct
import sys
import types
import weakref
from collections.abc import Iterator
from typing import Any, NamedTuple

import torch

from kernelgenbench.sandbox.class_code import triton_own
from kernelgenbench.sandbox.launch_args import triton_block
from kernelgenbench.sandbox.protocol import HOST_KEEP_BYTES

INT_AS_BITS = 1 << 24  # an int this large may be a float's bits (2**24 is a float32 of 2.4e-38 as bits)
MAX_NUMBERS = 1 << 16  # scalars taken from one value (a table larger than this is no kernel constant)
_BASE = torch._C.TensorBase
_T_OFFSET, _T_SIZE, _T_STRIDE = _BASE.storage_offset, _BASE.size, _BASE.stride
_T_DTYPE = _BASE.__dict__["dtype"].__get__
_T_STORAGE, _S_DATA_PTR, _S_NBYTES = _BASE.untyped_storage, torch._C.StorageBase.data_ptr, torch._C.StorageBase.nbytes
_SEQUENCES = (tuple, list, frozenset, set, collections.deque)
_TEXT = (str, bytes, bytearray)
_TEXT_CHUNK = 4  # characters or bytes of a string constant counted as one value (a float's worth of bits)
_DTYPE = torch.dtype
_issubclass, _type, _isinstance = issubclass, type, isinstance


def host_number(x: Any) -> bool:
    """A value that carries a host result into a kernel: any float (a float subclass too), or an int as large as
    a float's bit pattern (sizes, strides and offsets are smaller)."""
    if _isinstance(x, bool):
        return False
    return _isinstance(x, float) or (_isinstance(x, int) and abs(int.__int__(x)) >= INT_AS_BITS)


def number_values(value: Any) -> Iterator[float | int]:
    """The host numbers (floats, float-sized ints) in a value, a constexpr or a container, at most MAX_NUMBERS."""
    return (x for kind, x in leaves(value) if kind == "number")


def leaves(value: Any, limit: int = MAX_NUMBERS) -> Iterator[tuple[str, Any]]:
    """Every scalar `value` holds, in walk order (see the module docstring), at most `limit` of them."""
    stack, n = [value], 0
    while stack:
        v = stack.pop()
        if n >= limit:
            yield "overflow", 1 + len(stack)
            return
        n += 1
        found = _scalar(v)
        if found is not None and found[0] == "number" and _type(found[1]) is int and abs(found[1]) >> 64:
            # an int past 64 bits carries as many words as it has (red team 32 packed a whole answer into one
            # constexpr int): each 32-bit word is a leaf of its own
            x = abs(found[1])
            words = [(x >> s) & 0xFFFFFFFF for s in range(0, x.bit_length(), 32)]
            n += len(words)
            yield from (_scalar(w if found[1] > 0 else -w) for w in words)
        elif found is not None:
            yield found
        elif _issubclass(_type(v), _BASE):
            yield from _tensor_meta(v)
        else:
            stack.extend(reversed(_members(v)))


def _scalar(v: Any) -> tuple[str, Any] | None:
    """A scalar leaf, read through its base type's code; None for anything else."""
    if _type(v) is _Chunk:
        return "text", (v.at, v.text)
    if _isinstance(v, bool):
        return "bool", int.__int__(v) == 1
    if _isinstance(v, float):
        return "number", float.__float__(v)
    if _isinstance(v, int):
        x = int.__int__(v)
        return ("number" if abs(x) >= INT_AS_BITS else "small"), x
    if _type(v) is _DTYPE:
        return "dtype", str(v)
    if _type(v) is _Code:
        return "code", v.ident
    numpy = sys.modules.get("numpy")
    if numpy is not None and _isinstance(v, numpy.generic):
        x = numpy.generic.tolist(v)  # a Python scalar, or a tuple (a structured void), a datetime, text
        return _scalar(x) if _isinstance(x, (bool, int, float)) else None
    return None


def _members(v: Any) -> list[Any]:
    """What a non-scalar value holds, in order: a container's members, text as chunks, an object's attributes."""
    if _isinstance(v, _TEXT):
        base = next(t for t in _TEXT if _isinstance(v, t))
        size = base.__len__(v)
        return [_Chunk(i, base.__getitem__(v, slice(i, i + _TEXT_CHUNK))) for i in range(0, min(size, MAX_NUMBERS), _TEXT_CHUNK)]
    if _isinstance(v, complex):
        return [complex.real.__get__(v), complex.imag.__get__(v)]
    if _isinstance(v, dict):
        return [*dict.keys(v), *dict.values(v)]
    if _isinstance(v, _SEQUENCES):
        base = next(t for t in _SEQUENCES if _isinstance(v, t))
        return list(base.__iter__(v))
    numpy = sys.modules.get("numpy")
    if numpy is not None and _isinstance(v, numpy.ndarray):
        return numpy.ndarray.tolist(numpy.ndarray.ravel(v)[:MAX_NUMBERS])
    if numpy is not None and _isinstance(v, numpy.generic):
        return [numpy.generic.tolist(v)]
    language = sys.modules.get("triton.language")
    if language is not None and _isinstance(v, language.constexpr):  # callable (it may wrap a function): its value,
        state = object.__getattribute__(v, "__dict__")  # and whatever else was set on it
        return [dict.get(state, "value"), *(x for k, x in dict.items(state) if k not in ("value", "type"))] \
            if _type(state) is dict else []
    if callable(v) or _isinstance(v, types.ModuleType):  # code, not data: which code, by identity (a JIT helper
        return [_Code(v), *_foreign_state(v)]  # per value, classes carrying values, are a channel too)
    if _kernel_side(v, language):
        return []
    return _attributes(v)


def _foreign_state(v: Any) -> list[Any]:
    """What was set on an object of triton's own class (a JIT function) under a name triton's code never uses:
    data the candidate hung on it (`kernel.payload = answer`)."""
    if not triton_own(_type(v)):
        return []
    try:
        state = object.__getattribute__(v, "__dict__")
    except AttributeError:
        return []
    if _type(state) is not dict:
        return []
    known = _names_used(_type(v))
    return [x for k, x in dict.items(state) if k not in known]


@functools.cache  # only triton's own classes reach it (_foreign_state): hashing them runs no candidate code
def _names_used(cls: type) -> frozenset[str]:
    """Every attribute name the code of `cls` and its bases names (what they store on an instance among them)."""
    names: set[str] = set()
    for c in type.__dict__["__mro__"].__get__(cls):
        for x in type.__dict__["__dict__"].__get__(c).values():
            f = getattr(x, "__func__", x) if _isinstance(x, (classmethod, staticmethod)) else x
            code = getattr(f, "__code__", None) if _isinstance(f, types.FunctionType) else None
            if code is not None:
                names.update(code.co_names)
                names.update(n for const in code.co_consts if _isinstance(const, types.CodeType) for n in const.co_names)
    return frozenset(names)


class _Code:
    """A function, class or module handed over: a ("code", identity) leaf (stable for code made at import)."""

    __slots__ = ("ident",)

    def __init__(self, v: Any) -> None:
        self.ident = id(v)


def _kernel_side(v: Any, language: Any) -> bool:
    """triton's in-kernel values (blocks, descriptors in a kernel) and its interpreter's state: the kernel's data,
    not host scalars (an object of triton's own dtype, wrapper or descriptor classes is walked)."""
    if language is None or not triton_own(_type(v)):
        return False
    if triton_block(v):
        return True
    semantic = sys.modules.get("triton.language.semantic")
    interpreter = sys.modules.get("triton.runtime.interpreter")
    state = [getattr(semantic, "TritonSemantic", None), getattr(interpreter, "InterpreterBuilder", None),
             getattr(interpreter, "TensorHandle", None)]
    return _isinstance(v, tuple(k for k in state if _isinstance(k, type)))


class _Chunk:
    """A chunk of text at an offset: yielded as one ("text", (offset, chunk)) leaf."""

    __slots__ = ("at", "text")

    def __init__(self, at: int, text: Any) -> None:
        self.at, self.text = at, bytes(text) if _isinstance(text, bytearray) else text


def _attributes(v: Any) -> list[Any]:
    """An object's own data: its __dict__'s values and its slots' values (not a module's, a class's or a
    function's), read with object's own accessors."""
    out: list[Any] = []
    try:
        state = object.__getattribute__(v, "__dict__")
    except (AttributeError, TypeError):
        state = None
    if _type(state) is dict:
        out += dict.values(state)
    for cls in _type(v).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if _isinstance(slots, str) else slots:
            descriptor = cls.__dict__.get(name)
            if _type(descriptor) is types.MemberDescriptorType:
                try:
                    out.append(descriptor.__get__(v, cls))
                except AttributeError:  # an empty slot
                    continue
    return out


def _tensor_meta(t: Any) -> Iterator[tuple[str, Any]]:
    """A tensor's place in its storage as ("meta", n) leaves: its storage offset, sizes and strides, then its
    dtype (red team 39 handed one storage viewed as float32 or as int32 per bit of an answer) and its storage
    (read through torch's C base class: a subclass's code is not run)."""
    try:
        meta = (_T_OFFSET(t), *_T_SIZE(t), *_T_STRIDE(t))
    except (RuntimeError, NotImplementedError):  # no strided layout (sparse, nested): no place to read
        return
    for x in meta:
        yield "meta", int(x)
    yield "dtype", str(_T_DTYPE(t))
    try:
        storage = _T_STORAGE(t)
        yield "store", (_S_DATA_PTR(storage), _S_NBYTES(storage))
    except (RuntimeError, NotImplementedError):
        return


MAX_LOGGED = 1 << 20  # scalars kept per call: far more than any kernel's or wrapper's (more count as changed)


class ScalarLog:
    """The scalars handed to each call of a kernel or an op, by its name, in call order: host numbers as a set of
    distinct `floats` (and by position), every other scalar by position. A round is compared with the same workload's previous
    round (`changed`): shape-made scalars repeat there, scalars made from the data do not."""

    def __init__(self) -> None:
        self.calls: dict[str, list[list[tuple[str, Any]]]] = {}
        self.order: list[str] = []  # the names in call order (which kernel ran when carries bits too)
        self.floats: set[tuple[str, Any]] = set()  # distinct host numbers, by _number_key
        self.over = 0  # scalars past MAX_LOGGED, or past a value's MAX_NUMBERS: counted as changed
        self.kept = 0
        self._open: list[tuple[str, Any]] = []
        # which storage a tensor is, as a place: an input's name, one older than the call (by address: a table
        # made at import stays where it is), or one made in the call; set per call (`places`)
        self._inputs: dict[int, str] = {}
        self._older: frozenset[int] = frozenset()
        # storages the call's ops made (on any device), given: the recorder's, filled as the call runs, each with
        # how its content was made (which of several made tensors is handed over is a value too)
        self._made: dict[int, Any] | None = None
        self._literals: Any = frozenset()
        self._before: dict[int, Any] = {}
        # the numbers one-element inputs held when the call began (a 0-d divisor or fill value that a wrapper
        # reads with .item() and passes to its kernel, PyTorch's wrapped-number idiom): handed to a kernel or an
        # op, such a number is the input itself, logged as ("input", "value"), not a number made on the host
        self.input_values: frozenset[tuple[str, Any]] = frozenset()
        self.foreign: dict[int, int] = {}  # storages handed over that are neither an input nor made: address -> bytes
        self._spans: dict[int, int] = {}  # storages handed over in the call so far: address -> bytes
        self._starts: list[int] = []  # their addresses, sorted
        # `_moves` of the last previous round asked about (held weakly: a round's log would keep every earlier one)
        self._moved: tuple[weakref.ref[ScalarLog], _Moves] | None = None
        # the storages earlier calls made that this call handed over or pointed at (a workspace they cached)
        self.kept_used: set[int] = set()

    def places(self, inputs: dict[int, str], older: frozenset[int], made: dict[int, Any] | None = None,
               values: Any = (), literals: Any = frozenset(), before: dict[int, Any] | None = None,
               spans: dict[int, int] | None = None) -> None:
        """The call's inputs' storages (address: argument name), the CPU storages alive before it began, the
        storages its ops made with their provenance (the recorder's `made_storages`; also to collect `foreign`),
        and the numbers its one-element inputs held, read before it began (host numbers only: a small int or a
        bool would relabel whatever shape number or flag equals it in one round and not in the next);
        `literals`: the numbers written in the candidate's source (`source_numbers`), no distinct host values;
        `before`: storages earlier calls made, with their provenance then; `spans`: the inputs' storages' bytes
        (an address into one is that input and an offset)."""
        self._inputs, self._older, self._made, self._literals = inputs, older, made, literals
        self._before = before or {}
        self._spans = {ptr: nbytes for ptr, nbytes in (spans or {}).items() if ptr}
        self._starts = sorted(self._spans)  # at once: one insort per storage is quadratic in the worker's cache
        self.input_values = frozenset(_value_key(leaf) for leaf in map(_scalar, values)
                                      if leaf is not None and leaf[0] == "number")

    def _place(self, ptr: int, carried: bool = False) -> tuple[str, Any]:
        """Which storage `ptr` is; with `carried` (inside a provenance), one an earlier call made is known by how it
        was made and written since, so a workspace cached at a first call folds into a launch's provenance the
        same way in every round. Logged as a leaf, it stays older, by address: which of several tables made in an
        earlier call an op reads is a value (red team 18)."""
        name = self._inputs.get(ptr)
        if name is not None:
            return "place", ("input", name)
        # older: alive before the call (the CPU ledger knows), or on any device not made by the call's ops
        # (made first: a storage alive before the call may be freed in it and its address made anew)
        made = self._made is not None and ptr in self._made
        older = not made and (ptr in self._older or self._made is not None)
        if older and ptr in self._before:
            self.kept_used.add(ptr)
            if carried:
                return "place", ("made", self._before[ptr])
        if older:  # "kept": one an earlier call made (a workspace cached there), not one made at import
            return "place", ("kept" if ptr in self._before else "older", ptr)
        return "place", ("made", (self._made or {}).get(ptr, ("launch",)))

    def identity(self, values: Any) -> int:
        """Every scalar of `values` as it is logged (numbers by their bits, an input's own number as the input,
        tensors as their sizes, strides, offsets and places), folded into one number: a made storage's
        provenance (sandbox/dispatch.py), which of two views an op copied included (red team 33)."""
        out: list[Any] = []
        for kind, x in self._pointed(values):
            if kind == "store":
                kind, x = self._place(x[0], carried=True)
            elif kind == "number":
                x = _number_key(x)
                kind, x = ("input", "value") if (kind, x) in self.input_values else (kind, x)
            out.append((kind, x))
        return hash(tuple(out))  # per process, as the rounds it is compared across are

    def _pointed(self, values: Any) -> list[tuple[str, Any]]:
        """`values`' leaves, each float-sized int that points into a storage handed over in the call (this value's
        or an earlier one's) as that storage's store leaf and its byte offset as a meta leaf: a library's strided
        buffer carries its base tensor and the address as a Python int (FlagGems' StridedBuffer, `_data_ptr`),
        which moves with the allocator, not with the data; the offset still counts as a view's offset does (10
        FlagGems ops with 1-element outputs judged host_compute on an H100 for an address that moved)."""
        found = list(leaves(values))
        for kind, x in found:
            if kind == "store":
                self.note_span(*x)
        if not self._starts:
            return found
        out: list[tuple[str, Any]] = []
        for kind, x in found:
            base = self._span_of(x) if kind == "number" and _type(x) is int else None
            out += [(kind, x)] if base is None else [("store", (base, self._spans.get(base, 0))), ("meta", x - base)]
        return out

    def note_span(self, ptr: int, nbytes: int) -> None:
        """A storage of the call (handed over, an input, made by an op): an address into it is that storage."""
        if not ptr:
            return
        if ptr not in self._spans:
            bisect.insort(self._starts, ptr)
        self._spans[ptr] = max(self._spans.get(ptr, 0), nbytes)

    def _span_of(self, address: int) -> int | None:
        """The start of the storage of the call that `address` points into (its end included: a pointer one past
        the last byte; a storage an earlier call made, at its start), or None."""
        i = bisect.bisect_right(self._starts, address) - 1
        if i >= 0 and address <= self._starts[i] + self._spans[self._starts[i]]:
            return self._starts[i]
        return address if address in self._before else None

    def host_words(self, dtype: str, data: bytes) -> list[Any]:
        """The first HOST_VALUES_BYTES of host-made data word by word, an 8-byte word that points into a storage of
        the call as ("ptr", which storage, offset): a table of pointers a wrapper rebuilds each call (a grouped
        kernel's operands, chunks of one input) moves with the allocator, not with the data; any other word as it
        is, so every bit of an answer packed there shows (red team 36 hid one in the low bits of pointer-like
        words when they were all logged as one)."""
        size = _ITEMSIZE.get(dtype, 1)
        out: list[Any] = []
        for i in range(0, min(len(data), HOST_VALUES_BYTES), size):
            word = data[i:i + size]
            x = int.from_bytes(word, "little") if size == 8 and (self._starts or self._before) else 0
            base = self._span_of(x) if x else None
            out.append(word if base is None else ("ptr", self._place(base, carried=True)[1], x - base))
        return out

    def note_foreign(self, values: Any) -> None:
        """Collect `values`' storages that are neither an input nor made in the call, logging nothing."""
        for kind, x in leaves(values):
            if kind == "store":
                self.foreign_span(*x)

    def foreign_of(self, ptr: int) -> bool:
        """Whether the storage at `ptr` is neither an input nor made by the call's ops (False when not collecting)."""
        return self._made is not None and bool(ptr) and ptr not in self._inputs and ptr not in self._made

    def foreign_span(self, ptr: int, nbytes: int) -> None:
        """A storage a launch reached, noted in `foreign` if it is neither an input nor made in the call."""
        if self.foreign_of(ptr):
            self.foreign[ptr] = nbytes


    def start(self, name: str) -> None:
        """The next scalars belong to a new call of `name`."""
        self._open = []
        self.calls.setdefault(name, []).append(self._open)
        if len(self.order) < MAX_LOGGED:
            self.order.append(name)

    def add(self, values: Any) -> int:
        """Log every scalar in `values` to the open call; how many were taken (floats new to the set included)."""
        taken = 0
        for kind, x in self._pointed(values):
            if kind == "store":
                self.foreign_span(*x)
                kind, x = self._place(x[0])
            elif kind == "number" and self.input_values and _value_key((kind, x)) in self.input_values:
                kind, x = "input", "value"
            if kind == "overflow":
                self.over += x
            elif kind == "number":
                key = _number_key(x)
                # a constant the source spells (a polynomial's coefficients handed as a constexpr tuple) is no
                # value made from the data; by position it is still compared with the previous round
                if len(self.floats) < MAX_LOGGED and key not in self.floats and key not in self._literals:
                    self.floats.add(key)
                    taken += 1
                if self.kept < MAX_LOGGED:  # by position too: bits as the signs of zeros are two values
                    self._open.append((kind, key))
                    self.kept += 1
                    taken += 1
                else:
                    self.over += 1
            elif self.kept < MAX_LOGGED:
                self._open.append((kind, x))
                self.kept += 1
                taken += 1
            else:
                self.over += 1
        return taken

    def add_literals(self, values: Any) -> int:
        """Log a kernel's literal constants by position as ("literal", value) leaves, kept out of the distinct
        floats (a literal is no argument; only a change from the previous round counts). Returns how many."""
        taken = 0
        for kind, x in leaves(values):
            if self.kept >= MAX_LOGGED or kind == "overflow":
                self.over += 1 if kind != "overflow" else x
                continue
            self._open.append(("literal", (kind, _number_key(x) if kind == "number" else x)))
            self.kept += 1
            taken += 1
        return taken

    def add_host(self, dtype: str, data: bytes) -> int:
        """Log, as a call of its own, the first HOST_VALUES_BYTES of host-made tensor data as ("host", word)
        leaves: a table of shapes repeats from round to round, an answer made on the host does not. Returns how
        many were taken."""
        self.start(HOST_CALL + dtype)
        taken = 0
        for word in self.host_words(dtype, data):
            if self.kept >= MAX_LOGGED:
                self.over += 1
                break
            self._open.append(("host", word))
            self.kept += 1
            taken += 1
        return taken

    def changed(self, before: ScalarLog | None, skip: frozenset[str] = frozenset(), only: str = "",
                weigh: bool = False) -> int:
        """How many of this round's scalars `before` (the previous round of the same shapes) did not hand at the
        same place: each call compared with the call of the same name at the same position counted from the
        first call or from the last (an autotuner's first round adds calls in front), the smaller count kept; and
        the sequence of names likewise (which kernel ran when is a channel too). Leaves of a kind in `skip`
        are not counted (nor calls that hold only those); `only`: leaves of that kind alone, names not; `weigh`:
        a small int counts for the nibbles it carries (red team 32 packed 20 bits of a bool answer into each)."""
        if before is None:
            return 0
        if only:
            moves = self._moves(before)
            return sum(_aligned(now, before.calls.get(name, []), frozenset(), only, moves=moves)
                       for name, now in self.calls.items())
        kept, moves = [n for n in self.order if self._counted(n, skip)], self._moves(before)
        total = self.over + _aligned([[n] for n in kept], [[n] for n in before.order if before._counted(n, skip)])
        for name, now in self.calls.items():
            total += _aligned(now, before.calls.get(name, []), skip, weigh=weigh, moves=moves)
        return total

    def differences(self, before: ScalarLog | None, skip: frozenset[str] = frozenset(), limit: int = 3) -> list[str]:
        """The first `limit` scalars this round handed where `before` handed others (calls aligned from the first),
        each as "<call name> #<call> scalar <position>: <before> -> <now>": what a host_compute verdict names."""
        out: list[str] = []
        moves = self._moves(before) if before is not None else None
        for name, now in self.calls.items() if before is not None else ():
            prev = before.calls.get(name, [])
            for i, call in enumerate(now):
                other = prev[i] if i < len(prev) else []
                for k, leaf in enumerate(call):
                    if _leaf_counts(leaf, other, k, skip, moves):
                        was = _shown(other[k]) if k < len(other) else "nothing"
                        out.append(f"{name} #{i} scalar {k}: {was} -> {_shown(leaf)}")
                        if len(out) >= limit:
                            return out
        return out

    def _moves(self, before: ScalarLog) -> _Moves:
        """What a place may do between `before` and this round without counting (`_place_moved`): the storages
        `before`'s call made, by address, and of those this call keeps, the orders they had among alike ones as
        `before` made them, by how they were made (a cache filled by `before`'s call: each alike storage made
        after one of them is one lower in order now). Worked out once per previous round: every count asks."""
        if self._moved is not None and self._moved[0]() is before:
            return self._moved[1]
        made = before._made or {}
        kept = {leaf[1][1] for calls in self.calls.values() for call in calls for leaf in call
                if leaf[0] == "place" and leaf[1][0] == "kept"}
        shift: dict[Any, list[int]] = {}
        for split in (_ordinal(self._before.get(p)) for p in kept if p in made):
            if split is not None:
                shift.setdefault(split[2], []).append(split[1])
        self._moved = (weakref.ref(before), _Moves(made, shift))
        return self._moved[1]

    def _counted(self, name: str, skip: frozenset[str]) -> bool:
        return "host" not in skip or not name.startswith(HOST_CALL)


HOST_CALL = "host:"  # the call name prefix of host-made data logged by `add_host`
# bytes of one host-made tensor logged word by word: all a call's kept host data (red team 20 put a tiny answer
# after 64 padding words when only the first 64 were logged)
HOST_VALUES_BYTES = HOST_KEEP_BYTES
_ITEMSIZE = {"float64": 8, "int64": 8, "uint64": 8, "complex64": 8, "complex128": 16, "float32": 4, "int32": 4,
             "uint32": 4, "float16": 2, "bfloat16": 2, "int16": 2, "uint16": 2, "complex32": 4}


class _Moves(NamedTuple):
    """The previous round's made storages (address -> provenance), and of those this round keeps, the orders they
    had among alike ones, by how they were made (ScalarLog._moves)."""

    made: Any
    shift: dict[Any, list[int]]


_NO_MOVES = _Moves({}, {})


def _aligned(now: list[list[Any]], prev: list[list[Any]], skip: frozenset[str] = frozenset(), only: str = "",
             weigh: bool = False, moves: _Moves = _NO_MOVES) -> int:
    """`_apart` with the calls aligned from the first and from the last, the smaller count."""
    shift = len(now) - len(prev)
    starts = _apart(now, prev, 0, skip, only, weigh, moves)
    return starts if not shift else min(starts, _apart(now, prev, shift, skip, only, weigh, moves))


def source_numbers(path: str) -> frozenset[tuple[str, Any]]:
    """The host numbers (floats, float-sized ints) a Python source file spells, negated ones too, as distinct-float
    keys; none where it does not parse (the import reports that)."""
    import ast

    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return frozenset()
    found = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and _type(n.value) in (int, float)]
    return frozenset(_number_key(x) for v in found for x in (v, -v)
                     if _type(v) is float or abs(v) >= INT_AS_BITS)


def module_numbers(namespace: dict[str, Any], limit: int = 4096) -> frozenset[tuple[str, Any]]:
    """The host numbers a module's globals hold right after its import (constants, tuples, lists and dicts of them,
    constexprs), as distinct-float keys: what exists before any call cannot come from a call's data. Exact types
    only, read through their base types (a subclass's own code never runs here); at most `limit`."""
    constexpr = getattr(sys.modules.get("triton.language"), "constexpr", None)
    out: set[tuple[str, Any]] = set()
    stack, seen = list(dict.values(namespace)), set()
    while stack and len(out) < limit and len(seen) < limit:
        v = stack.pop()
        if _type(v) in (tuple, list, frozenset, set, dict):
            if id(v) in seen:  # a list holding itself, a table shared twice
                continue
            seen.add(id(v))
        if _type(v) is float or (_type(v) is int and abs(v) >= INT_AS_BITS):
            out.update((_number_key(v), _number_key(-v)))
        elif _type(v) in (tuple, list, frozenset, set):
            stack.extend(itertools.islice(iter(v), limit))  # the exact builtin types' own iterators
        elif _type(v) is dict:
            stack.extend(itertools.islice(dict.values(v), limit))
        elif constexpr is not None and _type(v) is constexpr:
            stack.append(object.__getattribute__(v, "__dict__").get("value"))
    return frozenset(out)


def _value_key(leaf: tuple[str, Any]) -> tuple[str, Any]:
    """A number leaf as a set key, by its bits (see _number_key)."""
    return leaf[0], _number_key(leaf[1])


def _number_key(x: float | int) -> tuple[str, Any]:
    """A host number as a set key by type and bits: -0.0 is not 0.0, 2.0**24 not 2**24, and every NaN of one bit
    pattern is one value (NaN equals nothing, not even another NaN object)."""
    return ("f", struct.pack("<d", x)) if _type(x) is float else ("i", x)


def _apart(now: list[list[Any]], prev: list[list[Any]], shift: int, skip: frozenset[str] = frozenset(),
           only: str = "", weigh: bool = False, moves: _Moves = _NO_MOVES) -> int:
    """Scalars of `now` not at the same place in `prev`, call i against call i - shift (kinds in `skip` left
    uncounted; with `only`, that kind alone counted; `weigh`: a small int by its nibbles)."""
    total = 0
    for i, call in enumerate(now):
        j = i - shift
        other = prev[j] if 0 <= j < len(prev) else []
        total += sum(_nibbles(leaf) if weigh else 1 for k, leaf in enumerate(call)
                     if (not only or leaf[0] == only) and _leaf_counts(leaf, other, k, skip, moves))
    return total


def _leaf_counts(leaf: tuple[str, Any], other: list[Any], k: int, skip: frozenset[str], moves: _Moves) -> bool:
    """Whether `leaf` counts as changed from the previous round's call `other`, position `k` against position `k`:
    a kind in `skip` does not, but a place that moved does (`_place_moved`)."""
    if k >= len(other):
        return leaf[0] not in skip
    was = other[k]
    if leaf[0] == "place" and was[0] == "place" and _place_moved(leaf[1], was[1], moves):
        return True
    return leaf[0] not in skip and leaf != was


def _shown(leaf: tuple[str, Any]) -> str:
    """A leaf as a verdict shows it: a number as its value, anything else as (kind, value), cut short."""
    kind, x = leaf
    if kind == "number" and _type(x) is tuple and x[0] == "f":
        return repr(struct.unpack("<d", x[1])[0])
    return repr(x[1] if kind == "number" else leaf)[:120]


def _nibbles(leaf: tuple[str, Any]) -> int:
    """What a changed leaf counts for when weighed: a small int or a tensor's offset, size or stride its 4-bit groups
    (sign included), any other 1 (an offset into a large storage carries as many bits as the storage's size)."""
    return (abs(int(leaf[1])).bit_length() + 4) // 4 if leaf[0] in ("small", "meta") else 1


def _place_moved(now: tuple[Any, ...], was: tuple[Any, ...], moves: _Moves | None = None) -> bool:
    """A storage handed where the previous round handed another: which of several tables or inputs a launch or op
    gets is a value (red team 18 picked one of 256 tables made before the call per byte of the answer, red team 31
    the same among tensors made in the call, red team 36 between the inputs, red team 37 between a table made at
    import and one made in the call), unlike a workspace the previous round made and this one kept (red team 38
    chose per bit between one an earlier workload made and a new one). A tensor made alike to such a cache is one
    lower in order for each of them made before it, and must be (false-positive hunt 16: a staging buffer cached
    per shape, made as the output is; red team 40 chose per bit between the order shifted and not)."""
    moves = moves or _NO_MOVES
    if now[0] == "kept" and was[0] == "made" and now[1] in moves.made:
        return False
    if now[0] == was[0] == "made":
        a, b = _ordinal(now[1]), _ordinal(was[1])
        if a is not None and b is not None and b[2] in moves.shift:
            return a[0] != b[0] or a[1] != b[1] - sum(1 for c in moves.shift[b[2]] if c < b[1])
    return now != was


def _ordinal(provenance: Any) -> tuple[Any, int, Any] | None:
    """(the provenance but its order, the order, how it was made but its order) of a made storage's provenance
    (sandbox/dispatch.py: `(*how, output, order)`, or `(*rewrite, (*how, output, order))` once rewritten)."""
    if _type(provenance) is not tuple or not provenance:
        return None
    last = provenance[-1]
    if _type(last) is int:
        return provenance[:-1], last, provenance[:-1]
    if _type(last) is tuple and last and _type(last[-1]) is int:
        return (provenance[:-1], last[:-1]), last[-1], last[:-1]
    return None
