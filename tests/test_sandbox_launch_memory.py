"""The interpreter's loads and stores checked against the tensors a launch may use (sandbox/launch_memory.py)."""

from __future__ import annotations

import ctypes

import numpy as np
import torch
import triton.language as tl
from triton.runtime.interpreter import TensorHandle

from kernelgenbench.sandbox.launch_memory import LaunchMemory, _lanes
from kernelgenbench.sandbox.ledger import WriteLedger


def _pointers(addresses):
    return TensorHandle(np.array(addresses, dtype=np.uint64), tl.pointer_type(tl.float32))


def _mask(lanes):
    return TensorHandle(np.array(lanes, dtype=bool), tl.int1)


def test_accesses_inside_a_tensor_pass_and_a_host_buffer_does_not():
    memory, x = LaunchMemory(WriteLedger()), torch.zeros(8)
    memory.arm([x])
    first, last = x.data_ptr(), x.data_ptr() + 7 * 4
    memory._check(*_lanes(_pointers([first, last]), None))
    assert memory.take() == (0, "", 0, "")
    host = ctypes.create_string_buffer(64)  # memory no tensor owns: a raw address bit-cast to a pointer
    memory._check(*_lanes(_pointers([ctypes.addressof(host), first]), None))
    memory._check(*_lanes(_pointers([last + 4]), None))  # one past the end: an unmasked edge
    strays, where, _, _ = memory.take()
    assert strays == 2 and where.startswith(hex(ctypes.addressof(host)))


def test_masked_off_lanes_are_no_accesses_and_disarmed_launches_are_not_checked():
    memory, x = LaunchMemory(WriteLedger()), torch.zeros(4)
    memory.arm([x])
    edge = x.data_ptr() + 4 * 4
    memory._check(*_lanes(_pointers([x.data_ptr(), edge]), _mask([True, False])))
    assert memory.take()[0] == 0
    memory.disarm()
    checked = memory._checked(lambda builder, ptrs, mask: "loaded", 0, 1, True, False)
    assert checked(None, _pointers([edge]), _mask([True])) == "loaded"
    assert memory.take()[0] == 0


def test_a_storage_the_ledger_holds_is_usable_through_a_pointer_table():
    ledger = WriteLedger()
    target = torch.ones(16)
    ledger.record([target])  # made by an op the recorder saw; only its address travels, in a table
    memory = LaunchMemory(ledger)
    memory.arm([torch.tensor([target.data_ptr()])])
    memory._check(*_lanes(_pointers([target.data_ptr() + 60]), None))
    assert memory.take()[0] == 0


def _store(builder, ptrs, value, mask):  # the interpreter's store, as its builder makes it
    at = ptrs.data.astype(np.uint64)
    for address, v in zip(at.tolist(), value.tolist(), strict=True):
        ctypes.c_float.from_address(address).value = v


def _load(builder, ptrs, mask):
    return [ctypes.c_float.from_address(a).value for a in ptrs.data.astype(np.uint64).tolist()]


def _poke(t, i, v):  # a write with no op and no store: a C callback's, inside the launch
    ctypes.c_float.from_address(t.data_ptr() + 4 * i).value = v


def test_a_kernels_stores_are_followed_and_any_other_write_inside_the_launch_is_counted():
    memory, out = LaunchMemory(WriteLedger()), torch.zeros(8)
    store = memory._checked(_store, 0, 2, False, True)
    memory.arm([out])
    store(None, _pointers([out.data_ptr(), out.data_ptr() + 4]), np.array([1.0, 2.0]), None)
    memory.disarm()
    assert memory.take()[2] == 0 and out[:2].tolist() == [1.0, 2.0]
    memory.arm([out])
    _poke(out, 5, 7.0)  # written behind the kernel's back, never loaded
    memory.disarm()
    unseen, first = memory.take()[2:]
    assert unseen == 2 and first.startswith("byte 22 of a 32-byte storage")  # 7.0 is 0x40e00000: two bytes differ


def test_a_load_of_what_the_kernel_did_not_store_is_counted_where_it_reads():
    memory, out = LaunchMemory(WriteLedger()), torch.zeros(4)
    load = memory._checked(_load, 0, 1, True, False)
    store = memory._checked(_store, 0, 2, False, True)
    memory.arm([out])
    _poke(out, 1, 3.0)
    assert load(None, _pointers([out.data_ptr() + 4]), None) == [3.0]
    assert memory.take()[2] == 2  # counted at the load (the kernel copies it on), not again at the end
    store(None, _pointers([out.data_ptr()]), np.array([3.0]), None)
    memory.disarm()
    assert memory.take()[2] == 0


def test_host_code_inside_the_launch_is_the_recorders_to_judge():
    memory, out = LaunchMemory(WriteLedger()), torch.zeros(4)
    memory.arm([out])
    _poke(out, 0, 1.0)
    memory.before_host_code()  # what the launch wrote before it, with no store, is counted here
    assert memory.take()[2] == 2
    _poke(out, 2, 5.0)  # a pre-run hook's write (the recorders judge it)
    memory.after_host_code()
    memory.disarm()
    assert memory.take()[2] == 0


def test_an_argument_re_pointed_inside_the_launch_is_counted():
    """No kernel re-points its arguments; red team 49 `set_` the output onto a storage of host bytes inside the
    launch, and the shadow saw no byte change (the old storage was never written)."""
    memory, out = LaunchMemory(WriteLedger()), torch.zeros(4)
    memory.arm([out])
    out.set_(torch.ones(4).untyped_storage(), 0, (4,), (1,))
    memory.disarm()
    unseen, first = memory.take()[2:]
    assert unseen == 16 and first.startswith("a launch argument re-pointed from")


def test_a_storage_host_code_made_inside_the_launch_is_shadowed_after_it():
    ledger = WriteLedger()
    memory, out = LaunchMemory(ledger), torch.zeros(4)
    memory.arm([out])
    memory.before_host_code()
    workspace = torch.zeros(4)  # a grid callable's workspace: made by an op, which the ledger records
    ledger.record([workspace])
    memory.after_host_code()
    _poke(workspace, 3, 2.0)  # then written behind the kernel's back (a pointer table's target)
    memory.disarm()
    assert memory.take()[2] == 1  # 2.0 is 0x40000000: one byte differs
