"""Sharing the evaluation devices among parallel workers without disturbing a measurement.

Correctness work (inputs, the reference, the candidate's calls, its Triton compiles) takes a device in
shared mode, so several candidates make progress at once; timing takes it exclusively, so no other kernel
runs on that device while a candidate or a baseline is timed. Waiting timers go first, so a stream of
correctness work never starves them. Candidates go to the least busy device: one pool serves every
visible GPU.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence


class DeviceLock:
    """A readers-writer lock: shared for correctness work, exclusive for timing; writers are preferred."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._shared = 0
        self._exclusive = False
        self._waiting_exclusive = 0

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Hold the device alongside other correctness work, but never during a timing."""
        with self._cond:
            while self._exclusive or self._waiting_exclusive:
                self._cond.wait()
            self._shared += 1
        try:
            yield
        finally:
            with self._cond:
                self._shared -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the device alone (timing): waits for shared holders to finish, blocks new ones."""
        with self._cond:
            self._waiting_exclusive += 1
            while self._exclusive or self._shared:
                self._cond.wait()
            self._waiting_exclusive -= 1
            self._exclusive = True
        try:
            yield
        finally:
            with self._cond:
                self._exclusive = False
                self._cond.notify_all()


class DevicePool:
    """The devices of one run, each with its lock; hands each candidate the device with the fewest."""

    def __init__(self, devices: Sequence[str]) -> None:
        if not devices:
            raise ValueError("a device pool needs at least one device")
        self.devices = tuple(devices)
        self.locks = {d: DeviceLock() for d in self.devices}
        self._busy = dict.fromkeys(self.devices, 0)
        self._mutex = threading.Lock()

    @contextlib.contextmanager
    def checkout(self) -> Iterator[str]:
        """A device for one candidate, the least busy one (ties go to the lowest index)."""
        with self._mutex:
            dev = min(self.devices, key=lambda d: self._busy[d])
            self._busy[dev] += 1
        try:
            yield dev
        finally:
            with self._mutex:
                self._busy[dev] -= 1

    def busy(self) -> dict[str, int]:
        """Candidates in flight per device."""
        with self._mutex:
            return dict(self._busy)
