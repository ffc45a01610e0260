"""Which writes into CPU tensor memory no op and no launch made (inside the worker).

A host answer can reach an output with nothing dispatched at all: a numpy view of the output, `ctypes.memmove`,
`Tensor.map_`, `_set_from_file`, or a tensor on memory torch did not allocate (`torch.frombuffer`,
`from_numpy`) copied in by a Triton launch. The dispatch recorder sees no op for any of them. The ledger keeps
a keyed digest of every CPU storage the candidate's code touches, taken right after the last writer it can
name (a dispatched op that writes it or makes it, a Triton launch, the evaluator drawing the inputs), and
checks it again before every op that reads or writes the storage, around every launch and at the call's end.
A storage whose bytes changed in between was written by none of them. A storage first met after the import
was made by none of them either: every op the recorder sees records what it makes, so it was made out of the
recorders' sight (a dispatch mode popped, the Python key excluded, code a launch ran) or on memory torch did
not allocate (`frombuffer`, memory given by `untyped_storage().resize_()`). All are reported as host-made
tensors (`DispatchRecorder.took_host`), judged with every other channel by `checks/host_data.py`.

Writes during a launch are the launch's (the interpreter writes its arguments' memory with no op, and a
kernel may write through a pointer table), so every storage is checked before a launch and digested anew
after it. The ledger lives as long as the worker: storages made at import are adopted once (`adopt_live`),
and every one is digested anew at the start of a call (timed calls run without recorders and may rewrite a
cached workspace). Every digest covers the whole storage: a sample of pages, however secret, leaves the pages
outside it free for a small answer (red team 10 wrote one page of a 256 MiB scratch); what whole digests cost is
measured by bench/ledger_cost.py.
Like every recorder in the candidate's process it can be undone from there (its key and table are reachable
by walking memory); it makes writes with no op leave a mark.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import secrets
from collections.abc import Iterable
from typing import Any, NamedTuple

import torch

from kernelgenbench.sandbox.protocol import HOST_KEEP_BYTES

_BASE, _STORAGE = torch._C.TensorBase, torch._C.StorageBase
_T_STORAGE, _T_DTYPE = _BASE.untyped_storage, _BASE.__dict__["dtype"].__get__
_S_PTR, _S_NBYTES = _STORAGE.data_ptr, _STORAGE.nbytes
_S_DEVICE = _STORAGE.__dict__["device"].__get__
_WEAK, _EXPIRED, _FREE = _STORAGE._weak_ref, _STORAGE._expired, _STORAGE._free_weak_ref
_FROM_WEAK = torch.UntypedStorage._new_with_weak_ptr
# bound now: a candidate may rebind torch.Tensor (a Parameter's storage is read as a tensor's)
_TENSOR, _UNTYPED, _PARAMETER = torch.Tensor, torch.UntypedStorage, torch.nn.Parameter
_issubclass, _type = issubclass, type


class WriteLedger:
    """Keyed digests of CPU storages as their last known writer left them."""

    def __init__(self) -> None:
        # sha256 (SHA-NI) reads twice as fast as blake2b here; the key goes first, so a digest cannot be foreseen
        self._keyed = hashlib.sha256(secrets.token_bytes(32))
        # data_ptr -> (weak ref, nbytes, digest, dtype of a tensor seen on it)
        self._table: dict[int, tuple[int, int, bytes, torch.dtype]] = {}

    def record(self, values: Iterable[Any]) -> None:
        """Digest the CPU storages of these tensors (or storages) as they are now: a known writer just ran."""
        for ptr, storage, dtype in _storages(values):
            self._put(ptr, storage, dtype)

    def check(self, values: Iterable[Any]) -> list[Found]:
        """The storages among `values`' that were written by no known writer since they were digested, or lie
        on memory torch did not allocate and were never seen; each is digested anew."""
        found = []
        for ptr, storage, dtype in _storages(values):
            changed, digest = self._changed(ptr, storage)
            if changed:
                found.append(_found(ptr, _S_NBYTES(storage), dtype))
            self._put(ptr, storage, dtype, digest)
        return found

    def check_new(self, values: Iterable[Any]) -> list[Found]:
        """The storages among `values`' it never saw (made with no recorder on: a view op reads no data, but a
        storage first met there was made out of sight all the same), digested from now on."""
        found = []
        for ptr, storage, dtype in _storages(values):
            if not self._known(ptr, _S_NBYTES(storage)):
                found.append(_found(ptr, _S_NBYTES(storage), dtype))
                self._put(ptr, storage, dtype)
        return found

    def check_all(self) -> list[Found]:
        """Every live storage in the ledger whose bytes changed since it was digested, or that moved to memory no
        known writer left (`moved`), digested anew; dead ones are dropped."""
        found = self.moved()
        for ptr, (weak, nbytes, digest, dtype) in list(self._table.items()):
            if _EXPIRED(weak):
                self._drop(ptr)
                continue
            now = self._digest(ptr, nbytes)
            if now != digest:
                found.append(_found(ptr, nbytes, dtype))
                self._table[ptr] = (weak, nbytes, now, dtype)
        return found

    def moved(self) -> list[Found]:
        """The storages it holds that were re-pointed to memory no known writer left (a storage object keeps its
        identity when its memory is replaced: `_share_fd_cpu_`, `resize_` with the recorders off; red team 11
        moved an output into shared memory inside a launch and wrote the answer there through the file), each
        digested at its new place. One an op moved is already known there and is not counted."""
        found = []
        for storage, dtype in self._relocated():
            ptr, nbytes = _S_PTR(storage), _S_NBYTES(storage)
            if ptr and nbytes and not self._known(ptr, nbytes):
                found.append(_found(ptr, nbytes, dtype))
                self._put(ptr, storage, dtype)
        return found

    def refresh(self, values: Iterable[Any] = ()) -> list[Found]:
        """Digest every live storage anew, and add those of `values` it does not hold (the start of a call: what
        ran since was not the call's; the end of a launch: it may have written any). The storages that moved to
        memory no known writer left (`moved`), digested at their new place: what the end of a launch counts and
        the start of a call does not."""
        found = self.moved()
        for ptr, storage, dtype in _storages(values):
            entry = self._table.get(ptr)
            if entry is None or _EXPIRED(entry[0]):
                self._put(ptr, storage, dtype)
        for ptr, (weak, nbytes, _, dtype) in list(self._table.items()):
            if _EXPIRED(weak):
                self._drop(ptr)
            else:
                self._table[ptr] = (weak, nbytes, self._digest(ptr, nbytes), dtype)
        return found

    def live(self) -> frozenset[int]:
        """The addresses of the live storages it holds (taken at a call's start: what existed before the call)."""
        return frozenset(ptr for ptr, (weak, _, _, _) in self._table.items() if not _EXPIRED(weak))

    def spans(self, values: Iterable[Any] = ()) -> list[tuple[int, int]]:
        """(start, end) addresses of every live storage it holds and of `values`' storages: the memory a launch
        may use (sandbox/launch_memory.py)."""
        return [(ptr, ptr + nbytes) for ptr, nbytes, _ in self.storages(values)]

    def storages(self, values: Iterable[Any] = ()) -> list[tuple[int, int, Any]]:
        """(address, bytes, storage) of every live storage it holds (its size as digested) and of `values`' (each
        once): the memory a launch may use, checked and shadowed while it runs (sandbox/launch_memory.py)."""
        out = {ptr: (nbytes, _FROM_WEAK(weak)) for ptr, (weak, nbytes, _, _) in self._table.items()
               if not _EXPIRED(weak)}
        for ptr, storage, _ in _storages(values):  # a value's storage at its size now, or as digested if larger
            out[ptr] = (max(_S_NBYTES(storage), out.get(ptr, (0, None))[0]), storage)
        return [(ptr, nbytes, storage) for ptr, (nbytes, storage) in out.items()]

    def adopt_live(self) -> None:
        """Digest the storage of every CPU tensor alive now (after the import: tables a library made there)."""
        self.record(o for o in gc.get_objects() if _issubclass(_type(o), _BASE))

    def _changed(self, ptr: int, storage: Any) -> tuple[bool, bytes]:
        """Whether the storage was written by no known writer (or is foreign memory first seen), and its digest now."""
        nbytes = _S_NBYTES(storage)
        digest = self._digest(ptr, nbytes)
        if not self._known(ptr, nbytes):
            # First seen here: no known writer made it. Every op the recorder sees records what it makes, so this
            # storage was made with the recorders off (a dispatch mode popped, the Python key excluded, code run
            # inside a launch) or where torch did not allocate it; its bytes are no op's.
            return True, digest
        return digest != self._table[ptr][2], digest

    def _relocated(self) -> list[tuple[Any, torch.dtype]]:
        """The live storages held at an address or size they no longer have, their entries dropped: digesting
        the old address would read memory that was freed (and may be unmapped)."""
        out = []
        for ptr, (weak, nbytes, _, dtype) in list(self._table.items()):
            if _EXPIRED(weak):
                continue
            storage = _FROM_WEAK(weak)
            if _S_PTR(storage) != ptr or _S_NBYTES(storage) != nbytes:
                self._drop(ptr)
                out.append((storage, dtype))
        return out

    def _known(self, ptr: int, nbytes: int) -> bool:
        """Whether a live storage of this size at this address was digested after a known writer."""
        entry = self._table.get(ptr)
        return entry is not None and not _EXPIRED(entry[0]) and entry[1] == nbytes

    def _put(self, ptr: int, storage: Any, dtype: torch.dtype, digest: bytes | None = None) -> None:
        entry = self._table.get(ptr)
        nbytes = _S_NBYTES(storage)
        digest = self._digest(ptr, nbytes) if digest is None else digest
        if entry is not None and not _EXPIRED(entry[0]):
            self._table[ptr] = (entry[0], nbytes, digest, dtype)
            return
        if entry is not None:
            _FREE(entry[0])
        self._table[ptr] = (_WEAK(storage), nbytes, digest, dtype)

    def _drop(self, ptr: int) -> None:
        _FREE(self._table.pop(ptr)[0])

    def _digest(self, ptr: int, nbytes: int) -> bytes:
        h = self._keyed.copy()
        h.update(_view(ptr, nbytes))
        return h.digest()


def _view(ptr: int, nbytes: int) -> memoryview:
    """The bytes at `ptr`, read in place (no op: nothing for any recorder to see)."""
    return memoryview((ctypes.c_ubyte * nbytes).from_address(ptr)) if nbytes else memoryview(b"")


class Found(NamedTuple):
    """A storage written by no known writer: its bytes read as `dtype` (a tensor seen on it), and a copy of
    them where they fit HOST_KEEP_BYTES (for the evaluator to look output values up in); its address."""

    dtype: str
    nbytes: int
    elements: int
    data: bytes | None
    ptr: int = 0


def _found(ptr: int, nbytes: int, dtype: torch.dtype) -> Found:
    whole = nbytes - nbytes % dtype.itemsize  # runs no op: the ledger is called while a recorder is on
    data = bytes(_view(ptr, whole)) if whole <= HOST_KEEP_BYTES else None
    return Found(str(dtype).removeprefix("torch."), nbytes, whole // dtype.itemsize, data, ptr)


def _storages(values: Iterable[Any]) -> list[tuple[int, Any, torch.dtype]]:
    """(data_ptr, storage, dtype) of each distinct CPU storage with data among plain tensors and storages (a bare
    storage's dtype: uint8). A subclass is left alone: reading its storage could run its own code."""
    out, seen = [], set()
    for v in values:
        try:
            if _type(v) is _TENSOR or _type(v) is _PARAMETER:
                storage, dtype = _T_STORAGE(v), _T_DTYPE(v)
            elif _type(v) is _UNTYPED:
                storage, dtype = v, torch.uint8
            else:
                continue
            if _S_DEVICE(storage).type != "cpu":
                continue
            ptr, nbytes = _S_PTR(storage), _S_NBYTES(storage)
        except (RuntimeError, NotImplementedError):  # sparse or wrapper tensors, invalid storages: no memory
            continue
        if not (ptr and nbytes):
            continue
        if ptr in seen:
            continue
        seen.add(ptr)
        out.append((ptr, storage, dtype))
    return out
