"""The write ledger: CPU storages written with no op or launch, or on memory torch did not allocate."""

from __future__ import annotations

import ctypes

import torch

from kernelgenbench.sandbox.dispatch import DispatchRecorder
from kernelgenbench.sandbox.ledger import WriteLedger


def test_a_write_through_numpy_is_found_and_an_op_is_not():
    ledger, t = WriteLedger(), torch.zeros(16)
    ledger.record([t])
    t.add_(1)  # no recorder here: the ledger alone sees a change
    assert [f.elements for f in ledger.check([t])] == [16]
    assert ledger.check([t]) == []  # digested anew
    t.numpy()[3] = 7.0
    (found,) = ledger.check_all()
    assert (found.dtype, found.nbytes) == ("float32", 64)
    assert torch.frombuffer(bytearray(found.data), dtype=torch.float32)[3] == 7.0


def test_a_storage_no_known_writer_made_is_host_data_when_first_seen():
    ledger = WriteLedger()
    outside = torch.frombuffer(bytearray(32), dtype=torch.float32)
    assert [f.elements for f in ledger.check([outside])] == [8]
    # torch's own allocation, made where no recorder saw it (a dispatch mode popped): no writer is known either
    assert [f.elements for f in ledger.check([torch.ones(8)])] == [8]
    made = torch.ones(8)
    ledger.record([made])  # what the recorder does with every op's result
    assert ledger.check([made]) == []


def test_a_write_into_any_single_page_of_a_large_storage_is_found():
    ledger, t = WriteLedger(), torch.zeros(1 << 22)  # 16 MiB of float32, 4096 pages
    ledger.record([t])
    for page in (1, 2047, 4094):  # never a sample of pages: any one of them may hold a small answer
        ctypes.memset(t.data_ptr() + page * 4096 + 100, 1, 8)
        assert [f.data for f in ledger.check_all()] == [None]  # too large to keep, still counted
    ctypes.memset(t.data_ptr() + 3000 * 4096, 1, 4)
    assert len(ledger.check([t[3000 * 1024:3000 * 1024 + 1]])) == 1  # through a view too


def test_dead_storages_leave_the_table_and_subclasses_are_not_read():
    class Sub(torch.Tensor):
        pass

    ledger, t = WriteLedger(), torch.zeros(4)
    ledger.record([t, torch.zeros(4).as_subclass(Sub)])
    assert len(ledger._table) == 1
    del t
    ledger.refresh()
    assert not ledger._table


def test_the_recorder_counts_what_the_ledger_finds_before_an_op_reads_it():
    ledger = WriteLedger()
    rec = DispatchRecorder(ledger=ledger)
    with rec:
        scratch = torch.empty(8)
        scratch.numpy()[:] = 2.0  # written with no op
        out = scratch.clone()
        out.zero_()  # an op's write: recorded, not found
    assert (rec.unseen, rec.host_built, rec.host_bytes) == (1, 8, 32)
    assert rec.host_made == [("float32", torch.full((8,), 2.0).numpy().tobytes())]
    rec.closing([out])
    assert rec.unseen == 1


def test_a_storage_first_met_at_a_view_op_is_news_and_a_known_one_is_not():
    ledger = WriteLedger()
    known, unknown = torch.zeros(4), torch.zeros(4)
    ledger.record([known])
    assert ledger.check_new([known[1:]]) == []
    assert [f.elements for f in ledger.check_new([unknown[1:]])] == [4]
    assert ledger.check_new([unknown]) == []  # digested from then on


def test_the_recorder_finds_a_tensor_made_with_its_mode_popped_when_an_op_takes_it():
    from torch.utils._python_dispatch import _disable_current_modes

    ledger = WriteLedger()
    rec = DispatchRecorder(ledger=ledger)
    with rec:
        with _disable_current_modes():
            hidden = torch.as_tensor([1.0, 2.0, 3.0])
        hidden.view(3, 1)  # a view op: the storage is news all the same
        torch.tensor([4.0, 5.0]) * 2  # torch.tensor's fresh tensor is host data, counted once (lift_fresh)
    assert rec.unseen == 1 and rec.host_built == 3 + 2


def test_a_kernel_registered_from_python_outside_torch_is_named():
    from kernelgenbench.sandbox.dispatch_table import foreign_kernels

    lib = torch.library.Library("kgbledgertest", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x, "CPU")
    (found,) = foreign_kernels(["kgbledgertest::f", "aten::add.Tensor", "aten::no_such_op"])
    assert found.startswith("kgbledgertest::f (CPU kernel registered at ") and "test_sandbox_ledger.py" in found
    assert foreign_kernels(["aten::zero_", "aten::mm"]) == []  # torch's own, its meta kernels in Python too


def test_memory_an_op_hands_out_unwritten_holds_no_stale_bytes():
    """Red team 24: an answer written into a freed bytearray came back from malloc in the next torch.empty, and the
    ledger took its bytes as that op's. Memory handed out unwritten is filled before anything sees it."""
    ledger = WriteLedger()
    with DispatchRecorder(ledger=ledger) as rec:
        for _ in range(4):  # malloc reuses the freed chunk for the next allocation of its size
            stale = bytearray(b"\x3f\x80\x00\x00" * 16384)  # float32 1.0, 64 KiB
            del stale
            fresh = torch.empty(16384)
            assert torch.isnan(fresh).all()
        grown = torch.arange(4.0)
        grown.resize_(6)
        from_nothing = torch.empty(0).resize_(5)
        like = torch.empty_like(grown).new_empty(3)
    assert grown[:4].tolist() == [0.0, 1.0, 2.0, 3.0] and torch.isnan(grown[4:]).all()  # a resize keeps its bytes
    assert torch.isnan(from_nothing).all() and torch.isnan(like).all()
    assert rec.unseen == 0  # the filled bytes are the allocating op's: no write out of sight


def test_a_storage_moved_with_no_op_is_found_at_its_new_place_and_its_old_place_is_not_read():
    ledger, t = WriteLedger(), torch.arange(64, dtype=torch.float32)
    ledger.record([t])
    old = t.data_ptr()
    t.untyped_storage()._share_fd_cpu_()  # same storage object, new memory: no recorder saw a writer of it
    t.numpy()[5] = -1.0
    assert t.data_ptr() != old
    (found,) = ledger.moved()  # red team 11 did this inside a launch, whose end would adopt the new place
    assert torch.frombuffer(bytearray(found.data), dtype=torch.float32)[5] == -1.0
    assert old not in ledger._table and ledger.check_all() == []
    # a move a known writer made (an op the recorder records: `resize_` growing a buffer) is not counted
    u = torch.zeros(8)
    ledger.record([u])
    u.resize_(1 << 16)
    ledger.record([u])
    assert ledger.moved() == [] and ledger.check_all() == []
    # a move at a call's start (a timed call's, no recorder) is adopted without a count
    u.resize_(1 << 17)
    ledger.refresh()
    assert ledger.moved() == [] and u.data_ptr() in ledger._table
