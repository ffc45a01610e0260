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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

# The interpreter builder's memory ops: (method, index of the pointer argument, index of the mask or None).
_MEMORY_OPS = (("create_masked_load", 0, 1), ("create_masked_store", 0, 2), ("create_atomic_cas", 0, None),
               ("create_atomic_rmw", 1, 3))


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

    def install(self) -> dict[str, tuple[Any, str]]:
        """Wrap the interpreter builder's memory ops (worker only, before the candidate is imported); the
        wrapped methods, to be watched for replacement ({} without the interpreter)."""
        try:
            from triton.runtime.interpreter import InterpreterBuilder
        except ImportError:
            return {}
        watched = {}
        for name, ptr_at, mask_at in _MEMORY_OPS:
            original = InterpreterBuilder.__dict__.get(name)
            if original is None:
                continue
            setattr(InterpreterBuilder, name, self._checked(original, ptr_at, mask_at))
            watched[f"triton.InterpreterBuilder.{name}"] = (InterpreterBuilder, name)
        return watched

    def arm(self, values: Iterable[Any], log: Any = None) -> None:
        """A launch with these arguments starts: its accesses are checked until `disarm`; with the call's
        ScalarLog `log`, those landing in storages made before the call are noted there."""
        self._log = log
        old = sorted((a, b) for a, b in self._ledger.spans() if log is not None and log.foreign_of(a))
        self._old_starts = np.array([a for a, _ in old], dtype=np.uint64)
        self._old_ends = np.array([b for _, b in old], dtype=np.uint64)
        spans = sorted(self._ledger.spans(values))
        starts, ends = [], []
        for start, end in spans:  # merged, so the ends rise with the starts
            if starts and start <= ends[-1]:
                ends[-1] = max(ends[-1], end)
            else:
                starts.append(start)
                ends.append(end)
        self._starts, self._ends = np.array(starts, dtype=np.uint64), np.array(ends, dtype=np.uint64)
        self._armed = True

    def disarm(self) -> None:
        """The launch ended."""
        self._armed = False

    def take(self) -> tuple[int, str]:
        """The strays counted since the last take, and the first of them; the count starts again."""
        found = (self.strays, self.first)
        self.strays, self.first = 0, ""
        return found

    def _checked(self, original: Any, ptr_at: int, mask_at: int | None) -> Any:
        guard = self

        def checked(builder: Any, *args: Any, **kwargs: Any) -> Any:  # a descriptor load passes cache_policy=
            if guard._armed:
                guard._check(args[ptr_at], None if mask_at is None else args[mask_at])
            return original(builder, *args, **kwargs)

        checked.__wrapped__ = original  # type: ignore[attr-defined]
        return checked

    def _check(self, ptrs: Any, mask: Any) -> None:
        """Count the accessed addresses (mask lanes on) that lie outside every storage of the launch."""
        try:
            data = np.asarray(ptrs.data)
            width = max(1, int(ptrs.get_element_ty().primitive_bitwidth) // 8)
        except (AttributeError, TypeError, ValueError):  # not a pointer block: the interpreter raises itself
            return
        if mask is not None:
            on = np.broadcast_to(np.asarray(mask.data, dtype=bool), data.shape)
            data = np.broadcast_to(data, on.shape)[on]
        addresses = data.astype(np.uint64).ravel()
        if not addresses.size:
            return
        if self._old_starts.size:
            self._note_old(addresses)
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
