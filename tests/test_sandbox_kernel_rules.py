"""Triton's compile rule for what a kernel body names, applied at every launch (sandbox/kernel_rules.py)."""

from __future__ import annotations

import math
import types

import triton
import triton.language as tl

from kernelgenbench.sandbox.kernel_rules import KernelRules
from kernelgenbench.sandbox.launches import LaunchCounter

_TABLE = [1.0, 2.0]
_SCALE = tl.constexpr(2.0)
_BOX = types.ModuleType("box")
_BOX.TABLE = (1.0, 2.0)
_BOX.ITEMS = [1.0]


def _host(x):
    return x


class _Forged:
    """An object that names triton.language as its module (triton's own rule takes that on trust)."""


_Forged.__module__ = "triton.language"
_FORGED = _Forged


@triton.jit
def _reads_list(out_ptr):
    tl.store(out_ptr, _TABLE[0])


@triton.jit
def _allowed(out_ptr, N: tl.constexpr):
    x = tl.load(out_ptr + tl.arange(0, N)) * _SCALE * math.pi + math.sqrt(2.0) + _BOX.TABLE[0]
    if N > 4096:
        raise ValueError("too large")  # a branch no compile reaches: an exception class is no break
    tl.store(out_ptr + tl.arange(0, N), tl.sum(x, 0) + min(N, 3) + len(_BOX.TABLE))


@triton.jit
def _helper(x):
    return x + _host(x)


@triton.jit
def _calls_helper(out_ptr):
    tl.store(out_ptr, _helper(tl.load(out_ptr)))


@triton.jit
def _uses_handle(out_ptr):
    x = tl.load(out_ptr)
    x.handle.data[...] = 1.0
    tl.store(out_ptr, x)


@triton.jit
def _odd_names(out_ptr):
    tl.store(out_ptr, sum([1.0]) + _BOX.ITEMS[0] + _FORGED)


def _breaks(kernel):
    return KernelRules().check(kernel)[0]


def test_a_global_list_a_plain_function_and_handle_break_the_rule():
    assert "reads _TABLE: a list" in _breaks(_reads_list)[0]
    (helper,) = _breaks(_calls_helper)  # found in the JIT function the kernel calls
    assert helper.startswith("_helper (line") and "reads _host: a plain Python function" in helper
    assert "`.handle`" in _breaks(_uses_handle)[0]


def test_what_a_gpu_compile_allows_is_no_break():
    assert _breaks(_allowed) == []  # constexpr global, module constants and math functions, builtins, tl.sum


def test_builtins_outside_triton_a_module_list_and_a_forged_member_break():
    found = " | ".join(_breaks(_odd_names))
    assert "the Python builtin `sum`" in found
    assert "reads _BOX.ITEMS: a list" in found
    assert "reads _FORGED: a plain Python type" in found


def test_a_constant_that_changes_between_launches_gives_its_numbers():
    rules = KernelRules()
    assert rules.check(_allowed)[1] == []  # first launch: only remembered
    assert rules.check(_allowed)[1] == []  # unchanged
    _BOX.TABLE = (3.0, 4.0)
    try:
        assert sorted(rules.check(_allowed)[1]) == [3.0, 4.0]
    finally:
        _BOX.TABLE = (1.0, 2.0)


def test_the_launch_counter_keeps_breaks_of_interpreted_launches_only():
    counter = LaunchCounter(rules=KernelRules())
    counter.note_kernel(_reads_list, interpreted=False)  # a GPU compile refuses it itself
    assert counter.rule_breaks == []
    counter.note_kernel(_reads_list, interpreted=True)
    counter.note_kernel(_reads_list, interpreted=True)
    assert len(counter.rule_breaks) == 1 and "_TABLE" in counter.rule_breaks[0]


def test_a_launch_argument_that_is_no_launch_value_is_a_break():
    import torch

    from kernelgenbench.sandbox.kernel_rules import _argument_breaks

    class Hook:
        def __add__(self, other):
            return other

    assert list(_argument_breaks(0, torch.ones(2))) == [] and list(_argument_breaks(1, (3, 2.5, "s", None))) == []
    assert list(_argument_breaks(2, tl.constexpr(tl.float16))) == [] and list(_argument_breaks(3, torch.float32)) == []
    (why,) = _argument_breaks(4, tl.constexpr(Hook()))
    assert "launch argument 4 is a Hook, which a GPU launch cannot specialize" in why


def test_getattr_by_a_run_time_name_on_a_kernel_value_is_a_break():
    from kernelgenbench.sandbox.kernel_rules import _read_code

    def body(x):
        for h in ("handle",):
            x = getattr(x, h)
        return getattr(x, "dtype")  # noqa: B009 - a literal name: no break

    assert [root for root, _, _ in _read_code(body.__code__).dynamic] == [""]


_aggregate = getattr(triton, "aggregate", None) or tl.core._aggregate


@_aggregate
class _Row:
    base: tl.tensor
    n: tl.tensor

    def __init__(self, base, n):
        self.base = base
        self.n = n


@_aggregate
class _PeekRow:
    base: tl.tensor

    def __init__(self, base):
        self.base = base
        base.handle.data[...] = 0  # host data of a block, in the constructor the interpreter runs


@triton.jit
def _uses_row(out_ptr):
    row = _Row(out_ptr, 1)
    tl.store(row.base, tl.load(row.base) + row.n)


@triton.jit
def _uses_peek_row(out_ptr):
    row = _PeekRow(out_ptr)
    tl.store(row.base, tl.load(row.base))


def test_a_triton_aggregate_of_the_candidates_is_judged_by_its_constructor():
    """`@triton.aggregate` (Triton 3.4+) records built in a kernel: the class is no break, its __init__ is judged
    as a kernel body (setting its own fields is allowed; a block's host data is not)."""
    assert _breaks(_uses_row) == []
    (why,) = _breaks(_uses_peek_row)
    assert why.startswith("_PeekRow.__init__") and "`.handle`" in why


def _host_write(v):
    return v


@_aggregate
class _CallableMember:
    base: tl.tensor

    def __init__(self, base):
        self.base = base


_CallableMember.__add__ = __import__("functools").partial(_host_write)  # a callable that is no function: red team 48


@triton.jit
def _uses_callable_member(out_ptr):
    row = _CallableMember(out_ptr)
    tl.store(row.base, tl.load(row.base))


@triton.jit
def _calls_default(v, f=_host_write):
    return f(v)


@triton.jit
def _kernel_with_defaults(out_ptr, n=4, dt=tl.float32, BLOCK: tl.constexpr = 8):
    tl.store(out_ptr, _calls_default(tl.load(out_ptr)))


def test_an_aggregate_with_a_callable_member_that_is_no_function_is_no_aggregate():
    (why,) = _breaks(_uses_callable_member)
    assert "reads _CallableMember: a plain Python type" in why


def test_a_judged_functions_defaults_are_judged_as_launch_arguments():
    """A device function's `f=host_fn`, called as a local: no name the body reads shows it (red team 48)."""
    (why,) = _breaks(_kernel_with_defaults)  # the kernel's own defaults (numbers, dtypes) are no break
    assert why == "_calls_default's default for `f` is a function, which a GPU launch refuses (the interpreter " \
                  "would call it on the host)"


@_aggregate
class _CompileTimeInit:
    base: tl.tensor
    n: tl.tensor

    @triton.constexpr_function
    def __init__(self, base, n):  # as triton's own tests write aggregates
        self.base = base
        self.n = n


@triton.jit
def _uses_compile_time_init(out_ptr):
    row = _CompileTimeInit(out_ptr, 1)
    tl.store(row.base, tl.load(row.base) + row.n)


@triton.jit
def _nan_max(a, b, propagate_nan: tl.constexpr = tl.PropagateNan.ALL):
    return tl.maximum(a, b, propagate_nan=propagate_nan)


@triton.jit
def _reads_propagate_nan(out_ptr):
    x = tl.load(out_ptr)
    tl.store(out_ptr, tl.maximum(x, _nan_max(x, x), tl.PropagateNan.ALL))  # Inductor's maximum


def test_an_aggregate_with_a_compile_time_init_sets_its_fields():
    assert _breaks(_uses_compile_time_init) == []


def test_tritons_propagate_nan_enum_is_a_constant_in_a_body_a_default_and_a_launch_argument():
    assert _breaks(_reads_propagate_nan) == []
    assert KernelRules().check(_reads_propagate_nan, (tl.PropagateNan.NONE,))[0] == []


def test_only_tritons_own_enums_as_triton_loaded_them_are_constants():
    """Red team 50: an enum member's class can hold data (the answer) that a kernel reads off the member."""
    import enum

    class _Mode(enum.Enum):
        A = 1

    assert KernelRules().check(_reads_propagate_nan, (_Mode.A,))[0]  # the candidate's enum: a break
    tl.PropagateNan.zq_data = (1.0, 2.0)  # triton's, with the candidate's data added to its class
    try:
        assert KernelRules().check(_reads_propagate_nan, (tl.PropagateNan.ALL,))[0]
    finally:
        del tl.PropagateNan.zq_data
    assert KernelRules().check(_reads_propagate_nan, (tl.PropagateNan.ALL,))[0] == []
