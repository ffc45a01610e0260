"""sandbox/launch_args.py and sandbox/class_code.py: a pointer argument that is no plain tensor is read before the
launch as its host code (recorded as the call's), and a launch value is judged by its class's code, not its name.
Run in a fresh interpreter: the launch counter patches triton's classes."""

from __future__ import annotations

import collections
import enum
import functools
import os
import subprocess
import sys
import typing

SCRIPT = r'''
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.dispatch import sealed_recorder
from kernelgenbench.sandbox.launches import LaunchCounter

@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)

class Strided:  # a library's strided buffer: a data pointer, and what the interpreter reads through it
    def __init__(self, base):
        self.base, self.calls = base, 0
    def data_ptr(self):
        return self.base.data_ptr()
    def untyped_storage(self):
        self.calls += 1
        torch.full((9,), 1.5).sum()  # the candidate's own code: an op, recorded as the call's
        return self.base.untyped_storage()
    def new_empty(self, *a, **k):
        return self.base.new_empty(*a, **k)
    def storage_offset(self):
        return self.base.storage_offset()
    def size(self):
        return self.base.size()
    def stride(self):
        return self.base.stride()

src, dst = torch.arange(8.0), torch.zeros(8)
rec, check, _ = sealed_recorder()
counter = LaunchCounter(rec)
buf = Strided(src)
with counter.active(), rec:
    _copy[(1,)](buf, dst, 8, BLOCK=8)
assert torch.equal(dst, src), dst
assert buf.calls == 1, buf.calls  # read once, before the launch; the launch read the stand-in
assert rec.ops["aten::sum"] == 1 and "aten::sum" not in rec.in_launch, (rec.ops, rec.in_launch)
assert check(counter.ranges) == [], check(counter.ranges)

class Broken(Strided):
    def untyped_storage(self):
        raise ValueError("no storage here")
try:
    with counter.active(), rec:
        _copy[(1,)](Broken(src), dst, 8, BLOCK=8)
    raise SystemExit("a pointer that cannot be read launched")
except ValueError as exc:
    assert "no storage here" in str(exc)
assert check(counter.ranges) == [], check(counter.ranges)  # the window opened and closed as for any launch
print("OK")
'''


def test_a_pointer_argument_is_read_before_the_launch_as_host_code():
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr[-3000:]


class _Ops(int):
    def mul(self, a, b):
        return a * b


class _Act(enum.IntEnum):
    GELU = 1


class _Pair(typing.NamedTuple):
    a: int
    b: int


class TensorDescriptor:  # a name, not triton's class
    def load(self):
        return 0


def test_a_launch_value_is_judged_by_its_class_code_not_its_name():
    import numpy as np
    import torch
    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor as Real

    from kernelgenbench.sandbox.kernel_rules import _launch_value
    from kernelgenbench.sandbox.stdlib_code import watch_generated

    fake_numpy = type("Rows", (), {"__module__": "numpy", "sum": lambda self: 0})
    honest = (3, 2.5, "s", None, _Act.GELU, collections.namedtuple("P", "a b")(1, 2), _Pair(1, 2), np.float32(1),
              np.bool_(True), torch.float16, tl.float16, tl.pointer_type(tl.float32),
              Real.from_tensor(torch.ones(4, 4), [2, 2]), (1, (2, "a")))
    watch_generated()  # the namedtuples' generated code counted, as the worker counts what exists before the candidate
    assert all(_launch_value(v) for v in honest), [v for v in honest if not _launch_value(v)]
    hostile = (TensorDescriptor(), fake_numpy(), _Config(1, 2), _Wrapped(1, 2), _Nested(1, 2), _Partial(1, 2))
    assert not any(_launch_value(v) for v in hostile), [v for v in hostile if _launch_value(v)]


class _Config(typing.NamedTuple):  # a namedtuple with a method of the candidate's
    a: int
    b: int

    def mul(self, x):
        return x * self.a


class _Wrapped(typing.NamedTuple):  # the candidate's function wrapped by a standard-library one
    a: int
    b: int
    mul = typing._tp_cache(lambda x: x)


class _Nested(typing.NamedTuple):  # a class held as an attribute: calling it runs its code
    a: int
    b: int

    class mul:  # noqa: N801
        def __new__(cls, x):
            return x


class _Partial(typing.NamedTuple):  # the candidate's function as a standard-library partial's argument
    a: int
    b: int
    mul = functools.partial(functools.reduce, lambda x, y: x * y)


def test_a_classs_verdict_is_not_kept_while_the_candidate_can_change_it():
    from kernelgenbench.sandbox.class_code import own_code_free
    from kernelgenbench.sandbox.stdlib_code import watch_generated

    class Holder(typing.NamedTuple):
        a: int
        mul = functools.partial(abs)

    watch_generated()

    assert own_code_free(Holder)
    Holder.__dict__["mul"].__setstate__((lambda x: x, (), {}, None))  # re-pointed in place: every identity kept
    assert not own_code_free(Holder)


def test_a_scalar_subclass_reaches_the_launch_as_its_exact_value():
    from kernelgenbench.sandbox.launch_args import read

    made = read((_Ops(3), (_Act.GELU, 2.5), "s"), {"k": _Ops(4)}, interpreted=True)
    args, kwargs = made()
    assert args == (3, (1, 2.5), "s") and type(args[0]) is int and type(args[1][0]) is int
    assert kwargs == {"k": 4} and type(kwargs["k"]) is int


def test_op_scalars_are_logged_by_position_and_sealed():
    import torch

    from kernelgenbench.sandbox.dispatch import sealed_recorder

    scratch = torch.zeros(20)
    rec, check, _ = sealed_recorder()
    with rec:
        for i, v in enumerate((0.25, 0.5, 0.75)):
            scratch[i:i + 9].fill_(v)  # fills over overlapping windows: each value survives in one element
    assert len(rec.scalars.floats) == 3
    assert check(0) == []
    rec.scalars.floats.clear()  # the candidate clearing the log is a mark
    assert any("counts were changed" in m for m in check(0))


TUNED = r'''
import torch, triton, triton.language as tl
from kernelgenbench.sandbox.launches import LaunchCounter

def bench(fn, quantiles):  # the interpreter has no device timer: one run per config, a made-up time
    fn()
    return [1.0, 1.0, 1.0]

@triton.autotune(configs=[triton.Config({"BLOCK": 8}), triton.Config({"BLOCK": 16})], key=["n"], do_bench=bench)
@triton.jit
def _double(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, 2 * tl.load(src + offs, mask=offs < n), mask=offs < n)

src, dst = torch.arange(8.0), torch.zeros(8)
seen = []
for n in (8, 8, 7):
    counter = LaunchCounter()
    with counter.active():
        _double[(1,)](src, dst, n)
    seen.append((counter.benchmarked, counter.launches["_double"]))
assert torch.equal(dst[:7], 2 * src[:7]), dst
# a new key benchmarks each config (three launches: two benchmarked, then the chosen one); a known key does not
assert seen == [(True, 3), (False, 1), (True, 3)], seen
print("OK")
'''


def test_a_call_in_which_an_autotuner_benchmarked_is_told_apart():
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, "-c", TUNED], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr[-3000:] + proc.stdout[-2000:]
