"""Sharing devices among parallel workers: timing runs alone on its device; candidates spread over devices."""

from __future__ import annotations

import threading
import time

import pytest

from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.devices import DeviceLock, DevicePool
from kernelgenbench.evaluator.platform import resolve_devices
from kernelgenbench.evaluator.runner import auto_workers


def _run(target) -> threading.Thread:
    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t


def test_shared_holders_overlap_but_exclusive_waits_for_them():
    lock, events = DeviceLock(), []
    inside = threading.Barrier(3)

    def shared(tag):
        with lock.shared():
            events.append(f"{tag}+")
            inside.wait(timeout=5)  # two shared holders at once, or this times out
            time.sleep(0.05)
            events.append(f"{tag}-")

    def exclusive():
        inside.wait(timeout=5)
        with lock.exclusive():
            events.append("X")

    threads = [_run(lambda: shared("a")), _run(lambda: shared("b")), _run(exclusive)]
    for t in threads:
        t.join(5)
    assert events.index("X") > max(events.index("a-"), events.index("b-"))


def test_a_waiting_timer_goes_before_new_correctness_work():
    lock, order = DeviceLock(), []
    first_in, release_first = threading.Event(), threading.Event()

    def first():
        with lock.shared():
            first_in.set()
            release_first.wait(5)
        order.append("first done")

    def timer():
        with lock.exclusive():
            order.append("timed")

    def late():
        with lock.shared():
            order.append("late shared")

    t1 = _run(first)
    first_in.wait(5)
    t2 = _run(timer)
    time.sleep(0.1)  # the timer is now waiting
    t3 = _run(late)
    time.sleep(0.1)
    assert order == []  # the late correctness call waits behind the timer
    release_first.set()
    for t in (t1, t2, t3):
        t.join(5)
    assert order.index("timed") < order.index("late shared")


def test_pool_hands_out_the_least_busy_device():
    pool = DevicePool(["cuda:0", "cuda:1"])
    with pool.checkout() as a, pool.checkout() as b, pool.checkout() as c:
        assert (a, b, c) == ("cuda:0", "cuda:1", "cuda:0")
        assert pool.busy() == {"cuda:0": 2, "cuda:1": 1}
    assert pool.busy() == {"cuda:0": 0, "cuda:1": 0}
    with pytest.raises(ValueError):
        DevicePool([])


def test_resolve_devices_on_a_machine_without_an_accelerator(monkeypatch):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this checks the CPU-only answers")
    assert resolve_devices("auto") == ["cpu"]
    assert resolve_devices("cpu") == ["cpu"]
    with pytest.raises(KgbError, match="not available here"):
        resolve_devices("cuda")
    with pytest.raises(KgbError, match="not a device name"):
        resolve_devices("gpu0")
    assert auto_workers(["cpu"]) == 1
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert auto_workers(["cuda:0", "cuda:1"]) == 4
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert auto_workers(["cuda:0", "cuda:1"]) == 2
