"""The interpreter's loads and stores checked against the tensors a launch may use (sandbox/launch_memory.py)."""

from __future__ import annotations

import ctypes

import numpy as np
import torch
import triton.language as tl
from triton.runtime.interpreter import TensorHandle

from kernelgenbench.sandbox.launch_memory import LaunchMemory
from kernelgenbench.sandbox.ledger import WriteLedger


def _pointers(addresses):
    return TensorHandle(np.array(addresses, dtype=np.uint64), tl.pointer_type(tl.float32))


def _mask(lanes):
    return TensorHandle(np.array(lanes, dtype=bool), tl.int1)


def test_accesses_inside_a_tensor_pass_and_a_host_buffer_does_not():
    memory, x = LaunchMemory(WriteLedger()), torch.zeros(8)
    memory.arm([x])
    first, last = x.data_ptr(), x.data_ptr() + 7 * 4
    memory._check(_pointers([first, last]), None)
    assert memory.take() == (0, "")
    host = ctypes.create_string_buffer(64)  # memory no tensor owns: a raw address bit-cast to a pointer
    memory._check(_pointers([ctypes.addressof(host), first]), None)
    memory._check(_pointers([last + 4]), None)  # one past the end: an unmasked edge
    strays, where = memory.take()
    assert strays == 2 and where.startswith(hex(ctypes.addressof(host)))


def test_masked_off_lanes_are_no_accesses_and_disarmed_launches_are_not_checked():
    memory, x = LaunchMemory(WriteLedger()), torch.zeros(4)
    memory.arm([x])
    edge = x.data_ptr() + 4 * 4
    memory._check(_pointers([x.data_ptr(), edge]), _mask([True, False]))
    assert memory.take()[0] == 0
    memory.disarm()
    checked = memory._checked(lambda builder, ptrs, mask: "loaded", 0, 1)
    assert checked(None, _pointers([edge]), _mask([True])) == "loaded"
    assert memory.take()[0] == 0


def test_a_storage_the_ledger_holds_is_usable_through_a_pointer_table():
    ledger = WriteLedger()
    target = torch.ones(16)
    ledger.record([target])  # made by an op the recorder saw; only its address travels, in a table
    memory = LaunchMemory(ledger)
    memory.arm([torch.tensor([target.data_ptr()])])
    memory._check(_pointers([target.data_ptr() + 60]), None)
    assert memory.take()[0] == 0
