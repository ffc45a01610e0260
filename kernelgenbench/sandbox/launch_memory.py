"""What memory an interpreted kernel reads and writes: every address inside a tensor, as on a device.

Under TRITON_INTERPRET=1 a pointer is a raw host address, so a kernel handed an int and bit-cast to a pointer
(`addr.to(tl.pointer_type(tl.float32), bitcast=True)`) reaches any memory of the process: it can gather the
inputs into a Python bytes object for the host to compute on, and load the answer back from another, with no
op and no tensor made from host data for any recorder to see. On a GPU such an address is no device memory (an
illegal memory access). So while an interpreted launch runs, every load, store and atomic the interpreter
makes (its builder's memory ops, which block pointers and tensor descriptors go through too) is checked
against the CPU storages the launch may use: its tensor arguments' and every live storage the write ledger
holds (a pointer table's targets are tensors the candidate made with ops). Masked-off lanes are not
accesses. Addresses outside all of them are counted (`strays`) with the first one, and judged by the
evaluator's checks/launch_memory.py.

Inside the launch the recorders are paused, and every write there is taken as the kernel's. So those storages are
also shadowed while the launch runs: copied when it starts, each store and atomic of the interpreter copied into
the shadow where it wrote, every load and atomic checked against the shadow where it reads, and the whole compared
when the launch ends and before any host code it runs (which the recorders judge, and after which the shadow is
taken anew). A byte that differs was written by neither the kernel nor recorded host code: a C-level callback
(a partial of builtins as a dunder, a weakref callback in a collection) runs no Python frame for the launch watch
to see (red team 48). Those bytes are counted (`unseen`), judged by checks/launch_writes.py.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch

# The interpreter builder's memory ops: (method, index of the pointer argument, index of the mask or None, whether
# it reads, whether it writes).
_MEMORY_OPS = (("create_masked_load", 0, 1, True, False), ("create_masked_store", 0, 2, False, True),
               ("create_atomic_cas", 0, None, True, True), ("create_atomic_rmw", 1, 3, True, True))
_S_PTR, _S_NBYTES = torch._C.StorageBase.data_ptr, torch._C.StorageBase.nbytes  # bound before the candidate runs
_T = torch._C.TensorBase
_T_STORAGE, _T_OFFSET, _T_SIZE, _T_STRIDE = _T.untyped_storage, _T.storage_offset, _T.size, _T.stride
_TENSORS = (torch.Tensor, torch.nn.Parameter)
_GC_ENABLED, _GC_DISABLE, _GC_ENABLE = gc.isenabled, gc.disable, gc.enable


class LaunchMemory:
    """The memory ops of Triton's interpreter, checked while a launch is armed."""

    def __init__(self, ledger: Any) -> None:
        self._ledger = ledger
        self._starts = self._ends = np.zeros(0, dtype=np.uint64)
        # storages the launch reaches that its call neither was handed nor made (ScalarLog.foreign_of), whose
        # accesses are noted there: a pool made before the call read through a raw address (red team 18)
        self._old_starts = self._old_ends = np.zeros(0, dtype=np.uint64)
        self._log: Any = None
        self._armed = False
        self.strays = 0  # accesses outside every storage, since the last `take`
        self.first = ""  # the first of them
        self._shadow = _Shadow()
        self._values: list[Any] = []  # the launch's arguments
        self._bindings: list[tuple[Any, tuple]] = []  # each tensor argument and where it pointed when the launch began
        self.unseen = 0  # bytes of the launch's storages written in it by neither its kernels nor host code
        self.unseen_first = ""

    def install(self) -> dict[str, tuple[Any, str]]:
        """Wrap the interpreter builder's memory ops (worker only, before the candidate is imported); the
        wrapped methods, to be watched for replacement ({} without the interpreter)."""
        try:
            from triton.runtime.interpreter import InterpreterBuilder
        except ImportError:
            return {}
        watched = {}
        for name, ptr_at, mask_at, reads, writes in _MEMORY_OPS:
            original = InterpreterBuilder.__dict__.get(name)
            if original is None:
                continue
            setattr(InterpreterBuilder, name, self._checked(original, ptr_at, mask_at, reads, writes))
            watched[f"triton.InterpreterBuilder.{name}"] = (InterpreterBuilder, name)
        return watched

    def arm(self, values: Iterable[Any], log: Any = None) -> None:
        """A launch with these arguments starts: its accesses are checked until `disarm`; with the call's
        ScalarLog `log`, those landing in storages made before the call are noted there."""
        self._log = log
        old = sorted((a, b) for a, b in self._ledger.spans() if log is not None and log.foreign_of(a))
        self._old_starts = np.array([a for a, _ in old], dtype=np.uint64)
        self._old_ends = np.array([b for _, b in old], dtype=np.uint64)
        self._values = list(values)
        held = self._ledger.storages(self._values)
        spans = sorted((ptr, ptr + nbytes) for ptr, nbytes, _ in held)
        starts, ends = [], []
        for start, end in spans:  # merged, so the ends rise with the starts
            if starts and start <= ends[-1]:
                ends[-1] = max(ends[-1], end)
            else:
                starts.append(start)
                ends.append(end)
        self._starts, self._ends = np.array(starts, dtype=np.uint64), np.array(ends, dtype=np.uint64)
        self._shadow.take(held)
        self._bindings = _bindings(self._values)
        self._armed = True

    def disarm(self) -> None:
        """The launch ended: its storages as its kernels left them, or the bytes that differ counted."""
        if self._armed:
            self._note(self._shadow.compare())
            self._note(_rebound(self._bindings))
        self._shadow.drop()
        self._values, self._bindings = [], []
        self._armed = False

    def before_host_code(self) -> None:
        """Host code of the launch starts (its writes are judged by the recorders): what differs now is counted."""
        if self._armed:
            self._note(self._shadow.compare())
            self._note(_rebound(self._bindings))

    def after_host_code(self) -> None:
        """Host code of the launch returned: the shadow is taken anew, of every storage the ledger holds now (host
        code may have made a workspace the kernel then writes)."""
        if self._armed:
            self._shadow.take(self._ledger.storages(self._values))
            self._bindings = _bindings(self._values)

    def take(self) -> tuple[int, str, int, str]:
        """The strays counted since the last take and the first of them, the unseen bytes and the first of them;
        the counts start again."""
        found = (self.strays, self.first, self.unseen, self.unseen_first)
        self.strays, self.first, self.unseen, self.unseen_first = 0, "", 0, ""
        return found

    def _checked(self, original: Any, ptr_at: int, mask_at: int | None, reads: bool, writes: bool) -> Any:
        guard = self

        def checked(builder: Any, *args: Any, **kwargs: Any) -> Any:  # a descriptor load passes cache_policy=
            if not guard._armed:
                return original(builder, *args, **kwargs)
            lanes = _lanes(args[ptr_at], None if mask_at is None else args[mask_at])
            enabled = _GC_ENABLED()
            _GC_DISABLE()  # no finalizer runs between the shadow's check and the access, or the access and its follow
            try:
                if lanes is not None:
                    guard._check(*lanes)
                    if reads:
                        guard._note(guard._shadow.compare_at(*lanes))
                out = original(builder, *args, **kwargs)
                if lanes is not None and writes:
                    guard._shadow.follow(*lanes)
            finally:
                if enabled:
                    _GC_ENABLE()
            return out

        checked.__wrapped__ = original  # type: ignore[attr-defined]
        return checked

    def _note(self, found: tuple[int, str]) -> None:
        count, first = found
        if count and not self.unseen:
            self.unseen_first = first
        self.unseen += count

    def _check(self, addresses: np.ndarray, width: int) -> None:
        """Count the accessed addresses (mask lanes on) that lie outside every storage of the launch."""
        if not addresses.size:
            return
        if self._old_starts.size:
            self._note_old(addresses)
        one = int(np.searchsorted(self._starts, addresses.min(), side="right")) - 1
        if one >= 0 and addresses.max() + np.uint64(width) <= self._ends[one]:
            return  # the usual access: all inside one span
        at = np.searchsorted(self._starts, addresses, side="right").astype(np.int64) - 1
        inside = (at >= 0) & (addresses + np.uint64(width) <= self._ends[np.maximum(at, 0)]) if self._ends.size \
            else np.zeros(addresses.shape, dtype=bool)
        outside = int((~inside).sum())
        if outside:
            if not self.strays:
                self.first = f"{hex(int(addresses[~inside][0]))} ({width}-byte access)"
            self.strays += outside

    def _note_old(self, addresses: np.ndarray) -> None:
        """Note each storage made before the call that these addresses fall in."""
        at = np.searchsorted(self._old_starts, addresses, side="right").astype(np.int64) - 1
        inside = (at >= 0) & (addresses < self._old_ends[np.maximum(at, 0)])
        for i in np.unique(at[inside]).tolist():
            start = int(self._old_starts[i])
            self._log.foreign_span(start, int(self._old_ends[i]) - start)


def _bindings(values: Iterable[Any]) -> list[tuple[Any, tuple]]:
    """Each plain tensor among `values` and its place: storage address and size, offset, sizes, strides."""
    out = []
    for v in values:
        if type(v) in _TENSORS:
            out.append((v, _place(v)))
    return out


def _place(t: Any) -> tuple:
    storage = _T_STORAGE(t)
    return _S_PTR(storage), _S_NBYTES(storage), _T_OFFSET(t), tuple(_T_SIZE(t)), tuple(_T_STRIDE(t))


def _rebound(bindings: list[tuple[Any, tuple]]) -> tuple[int, str]:
    """The tensor arguments re-pointed since (no kernel re-points its arguments; red team 49 `set_` one onto a
    storage of host bytes inside the launch): their bytes, and the first of them."""
    count, first = 0, ""
    for t, was in bindings:
        now = _place(t)
        if now != was:
            count += max(1, now[1])
            first = first or f"a launch argument re-pointed from {hex(was[0])} ({was[1]} bytes) to {hex(now[0])}"
    return count, first


def _lanes(ptrs: Any, mask: Any) -> tuple[np.ndarray, int] | None:
    """The addresses a memory op reaches (mask lanes on) and its access width; None for no pointer block (the
    interpreter raises itself)."""
    try:
        data = np.asarray(ptrs.data)
        width = max(1, int(ptrs.get_element_ty().primitive_bitwidth) // 8)
    except (AttributeError, TypeError, ValueError):
        return None
    if mask is not None:
        on = np.broadcast_to(np.asarray(mask.data, dtype=bool), data.shape)
        data = np.broadcast_to(data, on.shape)[on]
    return np.asarray(data, dtype=np.uint64).ravel(), width


class _Shadow:
    """Copies of a launch's storages, kept as its kernels' stores leave them."""

    def __init__(self) -> None:
        # (address, bytes, storage, its bytes in place, the copy), by address
        self._held: list[tuple[int, int, Any, np.ndarray, np.ndarray]] = []
        self._starts = self._ends = np.zeros(0, dtype=np.uint64)

    def take(self, storages: Iterable[tuple[int, int, Any]]) -> None:
        """Copy these storages (held until `drop`: none is freed, and no address reused, while the launch runs);
        each at its size now, where it still lies at its address."""
        held = []
        for ptr, _, storage in sorted(storages, key=lambda p: p[0]):
            nbytes = _S_NBYTES(storage)
            if nbytes and _S_PTR(storage) == ptr:
                real = _real(ptr, nbytes)
                held.append((ptr, nbytes, storage, real, real.copy()))
        self._held = held
        self._starts = np.array([h[0] for h in held], dtype=np.uint64)
        self._ends = np.array([h[0] + h[1] for h in held], dtype=np.uint64)

    def drop(self) -> None:
        self._held, self._starts, self._ends = [], np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.uint64)

    def compare(self) -> tuple[int, str]:
        """The bytes that differ from the copies (each copy then follows), and the first of them."""
        count, first = 0, ""
        for ptr, nbytes, storage, real, copy in self._held:
            if _S_PTR(storage) != ptr or _S_NBYTES(storage) != nbytes:
                continue  # moved to other memory: the write ledger counts that (ledger.moved)
            if np.array_equal(real, copy):
                continue
            differ = np.flatnonzero(real != copy)
            count += differ.size
            first = first or _where(ptr, nbytes, int(differ[0]))
            copy[differ] = real[differ]
        return count, first

    def compare_at(self, addresses: np.ndarray, width: int) -> tuple[int, str]:
        """The bytes a load is about to read that differ from the copies, and the first of them."""
        count, first = 0, ""
        for real, copy, at, ptr, nbytes, scale in self._places(addresses, width):
            differ = at[real[at] != copy[at]]
            if differ.size:
                now, was = real[differ], copy[differ]
                count += int(np.count_nonzero(now.view(np.uint8) != was.view(np.uint8)))
                first = first or _where(ptr, nbytes, int(differ[0]) * scale)
                copy[differ] = now
        return count, first

    def follow(self, addresses: np.ndarray, width: int) -> None:
        """A store or atomic wrote these addresses: the copies take what it wrote."""
        for real, copy, at, _, _, _ in self._places(addresses, width):
            copy[at] = real[at]

    def _places(self, addresses: np.ndarray, width: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, int, int, int]]:
        """Per held storage these accesses fall in (whole: the rest are strays), its bytes in place and its copy
        viewed as `width`-byte words where every access is one, the indices accessed, and the word size."""
        if not self._held or not addresses.size:
            return []
        low, high = addresses.min(), addresses.max()
        one = int(np.searchsorted(self._starts, low, side="right")) - 1
        if one >= 0 and high + np.uint64(width) <= self._ends[one]:  # the usual access: one storage, whole
            groups = [(one, addresses)]
        else:
            at = np.searchsorted(self._starts, addresses, side="right").astype(np.int64) - 1
            inside = (at >= 0) & (addresses + np.uint64(width) <= self._ends[np.maximum(at, 0)])
            groups = [(i, addresses[inside & (at == i)]) for i in np.unique(at[inside]).tolist()]
        out = []
        for i, reached in groups:
            ptr, nbytes, storage, real, copy = self._held[i]
            if _S_PTR(storage) != ptr or _S_NBYTES(storage) != nbytes:
                continue
            offsets = (reached - np.uint64(ptr)).view(np.int64)
            word = _WORDS.get(width)
            if word is not None and nbytes % width == 0 and not (offsets & (width - 1)).any():
                out.append((real.view(word), copy.view(word), offsets // width, ptr, nbytes, width))
            else:
                out.append((real, copy, (offsets[:, None] + np.arange(width, dtype=np.int64)).ravel(), ptr, nbytes, 1))
        return out


_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}  # aligned accesses compared a word at a time


def _real(ptr: int, nbytes: int) -> np.ndarray:
    """The bytes at `ptr`, as a numpy view in place (no op)."""
    return np.ctypeslib.as_array((ctypes.c_ubyte * nbytes).from_address(ptr))


def _where(ptr: int, nbytes: int, offset: int) -> str:
    return f"byte {offset} of a {nbytes}-byte storage at {hex(ptr)}"
