"""The dispatch recorder sees aten ops; the allowlist tells bookkeeping from compute."""

from __future__ import annotations

import torch

from kernelgenbench.evaluator.dispatch_guard import compute_ops
from kernelgenbench.sandbox.dispatch import DispatchRecorder


def test_records_compute_and_allows_allocation_views_copies():
    x = torch.randn(4, 4)
    rec = DispatchRecorder()
    with rec:
        out = torch.empty_like(x)
        out.copy_(x.t())
        x.reshape(16)
        x.contiguous()
        torch.zeros(3)
    assert compute_ops(rec.ops, rec.views, category="elementwise") == []
    rec = DispatchRecorder()
    with rec:
        y = x + 1
        y.sum()
    assert compute_ops(rec.ops, rec.views, category="elementwise") == ["aten::add.Tensor", "aten::sum"]


def test_copies_count_as_compute_for_copy_tasks_and_paused_ops_are_ignored():
    x = torch.randn(4)
    rec = DispatchRecorder()
    with rec:
        x.clone()
        rec.paused += 1
        x * 2  # as if inside a Triton launch (the interpreter's own host copies)
        rec.paused -= 1
    assert compute_ops(rec.ops, rec.views, category="copy") == ["aten::clone"]
    assert compute_ops(rec.ops, rec.views, category="elementwise") == []
    assert rec.in_launch["aten::mul.Tensor"] == 1


def test_launches_that_compile_a_kernel_variant_are_timed_as_compile():
    import time as time_mod

    from kernelgenbench.sandbox.launches import LaunchCounter

    class Kernel:  # a JIT function's in-memory cache: device -> (variants, ...)
        def __init__(self):
            self.device_caches = {0: ({}, "target")}

    def run(kernel, *args, grid, warmup, **kwargs):
        variants = kernel.device_caches[0][0]
        if args[0] not in variants:  # a new variant: "compile" it
            time_mod.sleep(0.05)
            variants[args[0]] = object()

    counter = LaunchCounter()
    launch = counter._wrap_run(run, count=True)  # counted here as under the interpreter (no launcher)
    k = Kernel()
    launch(k, "a", grid=(1,), warmup=False)
    first = counter.compile_s
    launch(k, "a", grid=(1,), warmup=False)  # cached: not compile time
    assert first >= 0.05 and counter.compile_s == first
    launch(k, "b", grid=(1,), warmup=False)
    assert counter.compile_s >= first + 0.05 and counter.total == 3
