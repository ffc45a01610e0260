"""The dispatch recorder sees aten ops; the allowlist tells bookkeeping from compute."""

from __future__ import annotations

import torch

from kernelgenbench.evaluator.dispatch_guard import DispatchRecorder, compute_ops


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
