"""Host data wrapped in a tensor during the call (checks/host_data.py): the judge's thresholds, and what the
worker's dispatch recorder counts for each way of making a tensor from host values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from evidence_helpers import call_report, example_task

from kernelgenbench.evaluator.checks import REGISTRY, judge_report
from kernelgenbench.evaluator.checks.host_data import FLOOR_ELEMS, judge
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.dispatch import DispatchRecorder, sealed_recorder
from kernelgenbench.sandbox.protocol import Sizes

ADD = example_task("aten/add.Tensor")
ROOT = Path(__file__).resolve().parents[1]


def _sized(out_numel: int, host_built: int):
    sizes = Sizes(returns=((out_numel, 4 * out_numel),), args={"self": (out_numel, 4 * out_numel)})
    return call_report(sizes=sizes, host_built=host_built)


def test_host_data_as_large_as_the_output_is_host_compute() -> None:
    verdict = judge_report(REGISTRY, ADD, _sized(1000, 1000))
    assert verdict.status is Status.HOST_COMPUTE
    assert "tensors made from host values: 1000 elements" in verdict.evidence


@pytest.mark.parametrize(("out_numel", "host_built"), [
    (1000, 999),  # a table smaller than the output (pointer arrays, shape vectors)
    (1000, 0),
    (FLOOR_ELEMS - 1, FLOOR_ELEMS - 1),  # too small to tell by size: judged by what changed between rounds
])
def test_small_host_tables_and_small_outputs_are_not_judged(out_numel: int, host_built: int) -> None:
    assert judge(ADD, _sized(out_numel, host_built)) is None


@pytest.mark.parametrize(("out_numel", "changed", "caught"), [
    (1, 0, False),  # a wrapper's constants and tables repeat from round to round
    (1, 1, True),  # a whole-tensor sum handed to the kernel as a float that changed with the data
    (5, 2, False),
    (5, 3, True),  # one float64 carries two float32 answers: a value per two elements
    (FLOOR_ELEMS, 100, False),  # from FLOOR_ELEMS on, judged by the shares of the output (launch floats, ...)
])
def test_a_tiny_output_is_judged_by_the_values_that_changed_from_the_previous_round(out_numel, changed, caught):
    sizes = Sizes(returns=((out_numel, 4 * out_numel),), args={"self": (out_numel, 4 * out_numel)})
    found = judge(ADD, call_report(sizes=sizes, values_changed=changed))
    assert (found is not None) is caught
    assert not caught or f"{changed} value(s)" in found and f"{out_numel} element(s)" in found


def test_a_random_ops_tiny_output_is_not_judged_by_its_changing_seed() -> None:
    bern = example_task("aten/bernoulli.p")
    assert bern.semantics == "random"
    assert judge(bern, call_report(sizes=Sizes(returns=((1, 4),), args={"self": (1, 4)}), values_changed=4)) is None


def test_a_random_ops_host_data_is_judged_by_its_bits_alone() -> None:
    """A draw's 0/1 outcomes match any table's ones and its seed changes by design: a 13-element draw's host data
    is judged by its bits (a bit per outcome), not by matches or changes; 16 bytes are 128 outcomes, whether or
    not they look like a Philox seed and offset (red team 37)."""
    bern = example_task("aten/bernoulli.p")
    sizes = Sizes(returns=((200, 800),), args={"self": (200, 800)})
    table = call_report(sizes=sizes, host_built=2, host_built_bytes=16, host_matched=150, host_changed=2)
    assert judge(bern, table) is None
    small = Sizes(returns=((13, 52),), args={"self": (13, 52)})
    assert judge(bern, call_report(sizes=small, host_built=2, host_built_bytes=16)) is not None


def test_a_round_is_not_compared_with_a_compiling_one_on_another_launch_path() -> None:
    """A library's first call compiles through Triton's JIT and later ones launch its cached kernels with other
    arguments: that pair is not compared; two calls on the same path are (a cheat that compiles every call too)."""
    from kernelgenbench.sandbox.worker import _leaves_changed

    def made(value: float):
        rec, _, _ = sealed_recorder()
        with rec:
            torch.tensor([7.0, value])
        return rec.scalars

    rounds: dict = {}
    assert _leaves_changed(rounds, ("s",), (made(1.5),), compiled=True) == (0, 0, 0, ())  # nothing before it
    assert _leaves_changed(rounds, ("s",), (made(2.5),), compiled=False) == (0, 0, 0, ())  # JIT path, then cache
    assert _leaves_changed(rounds, ("s",), (made(3.5),), compiled=False)[1] == 1  # cache, then cache
    assert _leaves_changed(rounds, ("s",), (made(4.5),), compiled=True)[1] == 1  # cache, then a compile
    assert _leaves_changed(rounds, ("s",), (made(5.5),), compiled=True)[1] == 1  # a compile every call


def test_a_second_round_that_used_a_storage_the_first_made_is_compared_with_none() -> None:
    """A wrapper that makes a workspace on its first call for a shape (empty, zero_ among its other ops) and uses
    it on the next: the first round set up, like one that compiled, so the second is compared with none; the
    third is compared with the second, whatever they make and use (a storage each round makes for the next)."""
    from kernelgenbench.sandbox.worker import _leaves_changed

    def made(value: float, used: set[int]):
        rec, _, _ = sealed_recorder()
        with rec:
            torch.tensor([7.0, value])
        rec.scalars.kept_used = used
        return rec.scalars

    rounds: dict = {}
    assert _leaves_changed(rounds, ("s",), (made(1.5, set()),), made=frozenset({10})) == (0, 0, 0, ())
    assert _leaves_changed(rounds, ("s",), (made(2.5, {10}),), made=frozenset({20})) == (0, 0, 0, ())  # set up
    assert _leaves_changed(rounds, ("s",), (made(3.5, {20}),), made=frozenset({30}))[1] == 1  # third: compared
    other: dict = {}
    _leaves_changed(other, ("s",), (made(1.5, set()),), made=frozenset({10}))
    assert _leaves_changed(other, ("s",), (made(2.5, {99}),))[1] == 1  # a storage some other call made


def test_rounds_that_entered_the_same_launches_another_way_compare_their_ops_only() -> None:
    """FlagGems' LibEntry sends a key's first call through Triton's JIT entry (no compile: Triton's cache holds the
    kernel already) and the next ones to the compiled kernel's launcher directly, which logs no arguments: such a
    pair compares the ops' and host data's logs, not the launches'. A launch count that changes between rounds
    is compared whole (red team 30 launched one more time each call to be compared with nothing)."""
    from kernelgenbench.sandbox.scalars import ScalarLog
    from kernelgenbench.sandbox.worker import _leaves_changed

    def logs(launch: int, op: float, launches: int = 1):
        log = ScalarLog()
        for _ in range(launches):
            log.start("k#1")
            log.add((launch,))
        rec, _, _ = sealed_recorder()
        with rec:
            torch.tensor([7.0, op])
        return log, rec.scalars

    rounds: dict = {}
    assert _leaves_changed(rounds, ("s",), logs(3, 1.5), path=("jit",)) == (0, 0, 0, ())
    assert _leaves_changed(rounds, ("s",), logs(4, 1.5), path=("direct",))[1] == 0  # launches' logs left out
    other = {("s",): rounds[("s",)][:1]}  # the first round alone before it
    assert _leaves_changed(other, ("s",), logs(5, 2.5), path=("direct",))[1] == 1  # the ops' log still counts
    # a round entered as an older one was is compared with that one, whole
    same_path = _leaves_changed(rounds, ("s",), logs(6, 1.5), path=("jit",))
    assert same_path[1] == 1 and same_path[3] == ("k#1 #0 scalar 0: ('small', 3) -> ('small', 6)",)  # named
    assert _leaves_changed(rounds, ("s",), logs(6, 2.5, launches=2), path=("jit", "jit"))[1] >= 1  # count changed


def test_launches_name_the_way_they_were_entered() -> None:
    """Each launch's entry: the JIT entry, or a compiled kernel's launcher called directly (no Triton JIT run
    around it), the outermost naming the path."""
    from kernelgenbench.sandbox.launches import LaunchCounter

    counter = LaunchCounter()
    counter._hook_counts = "all"  # a GPU whose driver has no launcher class to wrap: every hook call a launch
    counter._on_launch(None)
    with counter._entered("jit"), counter._entered("grid"):
        counter._on_launch(None)
    assert counter.paths == ["direct", "jit"]


def test_a_tiny_outputs_round_counts_changed_view_offsets_but_not_which_storage() -> None:
    """Red team 17 handed a host value to a kernel as the storage offset of a view: offsets, sizes and strides
    count for a tiny output; which storage a tensor is (made now, older later) does not."""
    from kernelgenbench.sandbox.scalars import ScalarLog
    from kernelgenbench.sandbox.worker import _leaves_changed

    scratch = torch.zeros(1 << 12, dtype=torch.uint8)

    def launch(offset: int, older: frozenset[int] = frozenset()) -> ScalarLog:
        log = ScalarLog()
        at = scratch.untyped_storage().data_ptr()
        made = None if older else {at: ("empty",)}  # made by this call, or kept from the one before
        log.places({}, older, made, before=dict.fromkeys(older, ("made by the call before",)))
        log.start("k")
        log.add((scratch[offset:],))
        return log

    rounds: dict = {}
    _leaves_changed(rounds, ("s",), (launch(16),))
    assert _leaves_changed(rounds, ("s",), (launch(16, frozenset({scratch.data_ptr()})),))[1] == 0
    kept = frozenset({scratch.data_ptr()})
    assert _leaves_changed(rounds, ("s",), (launch(40503 % 4096, kept),))[1] == 2  # its offset and its size
    # made again where the previous round had it kept: which storage it is counts too (red team 38)
    assert _leaves_changed(rounds, ("s",), (launch(40503 % 4096),))[1] == 1


def test_only_tritons_own_jit_functions_can_say_they_compiled() -> None:
    """A compile exempts the next call from the round comparison; a kernel object of the candidate's that grows a
    cache of its own (red team 17, under the interpreter) is no compile."""
    from kernelgenbench.sandbox.launches import _compiled

    class Growing(dict):
        def __len__(self):
            return 99

    class Fake:
        device_caches = {0: (Growing(),)}

    assert _compiled(Fake()) == 0


def test_a_compile_into_tritons_own_cache_is_counted() -> None:
    """On a device, FlagGems' first call compiles through JITFunction.run and later ones launch its cached kernel:
    the compile must be seen (triton keeps `device_caches` as a defaultdict), or round 1 is compared with round
    0 across two launch paths and judged host compute (the H100 run of session 26)."""
    import triton
    import triton.language as tl

    from kernelgenbench.sandbox.launches import _compiled

    @triton.jit
    def kernel(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 0.0)

    if "device_caches" not in vars(kernel):
        pytest.skip("this triton keeps no per-device cache on its JIT functions")
    assert _compiled(kernel) == 0
    # the binder tuple JITFunction.run makes for a device, its first member the cache a compile adds a variant to
    kernel.device_caches[0] = ({"variant": object()}, {}, None, None, None)
    assert _compiled(kernel) == 1


def test_every_word_of_host_made_data_is_compared_and_more_than_that_is_judged_for_a_tiny_output() -> None:
    """Red team 20 put a 1-element answer after 64 padding words when only the first 64 were logged."""
    from kernelgenbench.sandbox.protocol import HOST_KEEP_BYTES

    def made(value: float):
        rec, _, _ = sealed_recorder()
        with rec:
            torch.tensor([0.0] * 64 + [value])
        return rec.scalars

    assert made(2.5).changed(made(1.5), frozenset({"place"})) == 1

    def table(low: int = 0, stray: int = 0):  # a multi-tensor wrapper's (address, length) rows for chunks of one input
        x = torch.empty(4 * 78)  # a new allocation each round
        base = x.untyped_storage().data_ptr()
        rec, _, _ = sealed_recorder()
        rec.scalars.places({base: "self"}, frozenset(), rec.made_storages, spans={base: 4 * 4 * 78})
        with rec:
            torch.tensor([[base + 4 * 78 * i + low, 78] for i in range(4)] + [[stray or 0x7F00_0000_1000, 0]])
        return rec.scalars

    # chunk addresses at element (not 16-byte) offsets move with the allocator, not with the data
    assert table().changed(table(), frozenset({"place"})) == 0
    # but what sits in their low bits, or in a pointer-like word pointing at no storage of the call, is compared
    # (red team 36 hid a tiny answer in bits 2 and up of pointer-like words when every such word was one value)
    assert table(low=4).changed(table(), frozenset({"place"})) == 4
    assert table(stray=0x7F00_0000_1004).changed(table(), frozenset({"place"})) == 1
    sizes = Sizes(returns=((1, 4),), args={"self": (312, 1248)})
    found = judge(example_task("aten/add.Tensor"), call_report(sizes=sizes, host_built_bytes=HOST_KEEP_BYTES + 4))
    assert found is not None and "more than the round comparison can read" in found


def test_the_recorder_logs_host_made_values_for_the_round_comparison() -> None:
    def made(value: float):
        rec, check, _ = sealed_recorder()
        with rec:
            torch.tensor([7.0, value])
        assert check(0) == []  # the logged values are in the seal's tally
        return rec.scalars

    same, other = made(1.5), made(2.5)
    assert made(1.5).changed(same, frozenset({"meta"})) == 0
    assert other.changed(same, frozenset({"meta"})) == 1  # the table's 7.0 repeats, the value does not
    assert other.changed(same, frozenset({"host"})) == 0  # the size-judged channel leaves host data out


def test_an_argument_the_task_does_not_declare_mutable_is_not_an_output() -> None:
    # the input is large; the output (a scalar here) is not: a host-made tensor the size of the input is no answer
    sizes = Sizes(returns=((1, 4),), args={"self": (5000, 20000)})
    assert judge(ADD, call_report(sizes=sizes, host_built=5000)) is None


@pytest.mark.parametrize("make", [
    lambda x: torch.tensor(x.tolist()),
    lambda x: torch.as_tensor(np.asarray(x) + 1),
    lambda x: torch.from_numpy(np.ones(x.numel(), dtype=np.float32)),
    lambda x: x.new_tensor([0.0] * x.numel()),
], ids=["tensor(list)", "as_tensor(ndarray)", "from_numpy", "new_tensor"])
def test_the_recorder_counts_every_way_from_host_values_to_a_tensor(make) -> None:
    x = torch.randn(300)
    rec = DispatchRecorder()
    with rec:
        make(x)
        torch.tensor(3.0)  # a scalar: one element
    assert rec.host_built == 301


def test_host_values_inside_a_launch_count_and_the_interpreter_makes_none() -> None:
    rec = DispatchRecorder()
    with rec:
        rec.paused = 1  # what the launch counter does around a Triton launch
        torch.tensor([1.0] * 500)  # a kernel body under the interpreter may call Python that does this
        rec.paused = 0
    assert (rec.host_built, rec.host_bytes) == (500, 2000)
    code = (ROOT / "examples" / "solutions" / "aten__add.Tensor.py").read_text()
    script = (f"{code}\nimport torch\nfrom kernelgenbench.sandbox.dispatch import DispatchRecorder\n"
              "from kernelgenbench.sandbox.launches import LaunchCounter\n"
              "rec = DispatchRecorder()\ncounter = LaunchCounter(rec)\n"
              "with counter.active(), rec:\n    add_Tensor(torch.randn(3000), torch.randn(3000), alpha=2)\n"
              "assert counter.total >= 1 and rec.in_launch, (counter.launches, rec.in_launch)\n"
              "print(rec.host_built)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TRITON_INTERPRET": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["0"]


@pytest.mark.parametrize(("small_writes", "reads", "caught"), [
    (1000, 0, True),  # one write per output element
    (500, 0, True),  # two floats packed into each int64 element written
    (63, 0, True),  # a sixteenth of the output's elements: runs of equal values
    (0, 2000, True),  # one read per element (or more)
    (61, 61, False),  # under a sixteenth
    (3, 4, False),  # a zero-init, a size read
])
def test_writes_and_reads_of_a_few_elements_for_a_share_of_the_output_are_host_compute(small_writes, reads, caught):
    sizes = Sizes(returns=((1000, 4000),), args={"self": (1000, 4000)})
    found = judge(ADD, call_report(sizes=sizes, small_writes=small_writes, ops={"aten::_local_scalar_dense": reads}))
    assert (found is not None) is caught, found
    if caught:
        assert "at a time" in found or "writes into tensors of at most 8 elements" in found


def test_the_recorder_counts_writes_into_small_tensors_by_schema() -> None:
    x, out = torch.randn(20), torch.empty(20)
    rec = DispatchRecorder()
    with rec:
        for i in range(16):
            out[i].fill_(float(x[i]) * 2)  # aten::fill_ on one element: small
        torch.full((), 1.0, out=out[16])  # aten::full.out into one element: small
        out.view(torch.int64)[8:10].fill_(3)  # two int64 words: small
        out.zero_()  # the whole output (20 elements): not small
        torch.add(x, x, out=out)  # not small
        rec.paused = 1  # inside a launch: the interpreter's per-argument copies are not counted, a fill_ is
        out[:1].copy_(x[:1])
        out[0].fill_(0.0)
        rec.paused = 0
    assert rec.small_writes == 16 + 1 + 1 + 1
    sizes = Sizes(returns=((20, 80),), args={"self": (20, 80)})
    assert "19 writes into tensors of at most 8 elements" in judge(ADD, call_report(sizes=sizes, small_writes=rec.small_writes))


def test_a_reset_of_the_host_count_is_marked() -> None:
    rec, check, _ = sealed_recorder()
    with rec:
        torch.tensor([1.0] * 10)
    assert check(0) == []
    rec.host_built = 0  # what a candidate holding the recorder (`_get_current_dispatch_mode()`) would do
    assert any("counts were changed" in m for m in check(0))


def test_an_answer_packed_into_a_wider_dtype_is_judged_by_bytes() -> None:
    sizes = Sizes(returns=((1000, 4000),), args={"self": (1000, 4000)})
    found = judge(ADD, call_report(sizes=sizes, host_built=500, host_built_bytes=4000))  # complex64 pairs
    assert found is not None and "4000 bytes" in found
    small = Sizes(returns=((16, 32),), args={"self": (16, 32)})  # a half-precision output of 16 elements
    assert judge(ADD, call_report(sizes=small, host_built=4, host_built_bytes=32)) is None  # an int64 shape table


def test_a_tensor_pointed_at_a_host_made_storage_is_host_compute() -> None:
    rec = DispatchRecorder()
    with rec:
        storage = torch.UntypedStorage(list(range(1200)))  # bytes from a host list: no op dispatched
        torch.empty(0).set_(storage, 0, (300,), (1,))
    sizes = Sizes(returns=((300, 1200),), args={"self": (300, 1200)})
    found = judge(ADD, call_report(sizes=sizes, ops=dict(rec.ops)))
    assert found is not None and "aten::set_.source_Storage" in found, (found, rec.ops)


def test_the_launch_counter_collects_float_arguments_and_many_are_host_compute() -> None:
    from kernelgenbench.sandbox.launches import LaunchCounter
    from kernelgenbench.sandbox.scalars import _number_key

    def keys(*xs):  # the distinct numbers as the log keys them (type and bits)
        return {_number_key(x) for x in xs}

    counter = LaunchCounter()
    counter.note_arguments((torch.empty(3), 0.5, 7, (1.5, 2.5)), {"eps": 1e-6, "BLOCK": 128})
    counter.note_arguments((torch.empty(3), 0.5), {"eps": 1e-6})  # the same scalars in every launch
    assert counter.floats == keys(0.5, 1.5, 2.5, 1e-6)

    class Boxed(float):
        pass

    counter.note_arguments((Boxed(3.5), 1 << 30, True, -(1 << 24)), {})  # a float subclass, float-sized ints
    assert counter.floats == keys(0.5, 1.5, 2.5, 1e-6, 3.5, 1 << 30, -(1 << 24))
    sizes = Sizes(returns=((1000, 4000),), args={"self": (1000, 4000)})
    assert judge(ADD, call_report(sizes=sizes, launch_floats=4)) is None
    found = judge(ADD, call_report(sizes=sizes, launch_floats=250))
    assert found is not None and "250 distinct floats (or float-sized ints) passed to Triton kernels" in found


def _made(*tensors: torch.Tensor) -> tuple:
    import base64

    from kernelgenbench.sandbox.protocol import HostMade

    return tuple(HostMade(dtype=str(t.dtype).removeprefix("torch."), data=base64.b64encode(t.numpy().tobytes()).decode())
                 for t in tensors)


def test_a_small_outputs_values_are_looked_for_in_the_host_made_data() -> None:
    from kernelgenbench.evaluator.host_values import matched

    out = torch.randn(13)
    tables = _made(torch.tensor([13, 4096, 1, 0, 7] * 7), torch.arange(14))  # shape, stride, offset tables
    assert matched(tables, {"returns": [out]}) == 0
    assert matched(tables + _made(out.clone()), {"returns": [out]}) == 13  # the answer itself
    assert matched(_made(out.double()), {"returns": [out]}) == 13  # float64 sums cast to the output's dtype
    assert matched(_made(out.view(torch.int32)), {"returns": [out]}) == 13  # float bits packed as int32
    assert matched(_made(out.clone()), {"returns": [torch.randn(300)]}) == 0  # large outputs: judged by size


def test_small_outputs_are_host_compute_by_value_not_by_size() -> None:
    sizes = Sizes(returns=((13, 52),), args={"self": (13 * 64, 13 * 256)})
    tables = _made(torch.arange(40))  # honest tables: 40 int64, all in the report
    assert judge(ADD, call_report(sizes=sizes, host_built=40, host_built_bytes=320, host_made=tables)) is None
    found = judge(ADD, call_report(sizes=sizes, host_built=13, host_matched=13))
    assert found is not None and "13 output values found in them" in found
    # host data beyond what the report can carry, as large as the output: not looked into, so not trusted
    assert judge(ADD, call_report(sizes=sizes, host_built=20000, host_built_bytes=80000)) is not None


def test_a_seed_drawn_with_torch_is_no_compute_and_a_larger_draw_is() -> None:
    from kernelgenbench.evaluator.checks.torch_fallback import judge as fallback

    rec = DispatchRecorder()
    with rec:
        int(torch.randint(0, 2**31 - 1, (1,)).item())
    assert sum(rec.seed_draws.values()) == 1 and all(k.startswith("aten::randint") for k in rec.seed_draws)
    assert fallback(ADD, call_report(ops=dict(rec.ops), seed_draws=dict(rec.seed_draws))) is None
    rec = DispatchRecorder()
    with rec:
        torch.rand(100)
    assert not rec.seed_draws
    assert "aten::rand" in fallback(ADD, call_report(ops=dict(rec.ops), seed_draws={}))


def test_a_write_counts_as_small_by_the_memory_it_reaches_not_the_elements_it_shows():
    out = torch.zeros(64)
    rec = DispatchRecorder()
    with rec:
        out[:1].expand(9).fill_(2.0)  # 9 elements shown, one written
        out[:16].fill_(1.0)  # 16 elements written: no small write
        out.as_strided((3, 3), (1, 1)).zero_()  # overlapping rows: 5 elements reached
    assert rec.small_writes == 2


_TINY_HOST_SUM = '''
import copy

import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n):
    i = tl.arange(0, 8)
    tl.store(dst + i, tl.load(src + i, mask=i < n).to(dst.dtype.element_ty), mask=i < n)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    # the static check does not follow .tolist() through copy.copy (a library call): the run decides
    vals = copy.copy(self.reshape(-1).tolist())
    width = self.shape[1]
    sums = [0.0] * self.shape[0]
    i = 0
    for v in vals:
        sums[i // width] += v
        i += 1
    src = torch.tensor(sums, dtype=torch.float64)
    out = torch.empty(len(sums), dtype=self.dtype)
    _copy[(1,)](src, out, len(sums))
    return out
'''


def test_an_answer_made_on_the_host_for_a_tiny_output_is_caught_end_to_end(tmp_path) -> None:
    """Row sums of a [3, 40] input (an output of 3 elements) made in Python and copied in by a Triton kernel:
    host_compute, while the example's Triton kernel passes on the same workload."""
    import json

    from eval_helpers import EXAMPLE_SOLUTIONS, EXAMPLE_TASKS, run_kgb, task_rows, write_jsonl

    row = next(r for r in map(json.loads, EXAMPLE_TASKS.read_text().splitlines()) if r["id"] == "aten/sum.dim_IntList")
    work = next(w for w in row["workloads"] if w["purpose"] == "correctness")
    work["args"]["self"]["shape"] = [3, 40]
    row["workloads"] = [work]
    row["workload_status"] = {"state": "partial", "reason": "test: one tiny correctness workload"}
    tasks = write_jsonl(tmp_path / "tasks.jsonl", [row])
    honest = (EXAMPLE_SOLUTIONS / "aten__sum.dim_IntList.py").read_text()
    sols = write_jsonl(tmp_path / "s.jsonl", [
        {"task_id": row["id"], "code": _TINY_HOST_SUM, "candidate_id": "host"},
        {"task_id": row["id"], "code": honest, "candidate_id": "honest"}])
    out = tmp_path / "r.jsonl"
    proc = run_kgb("eval", "--dataset", str(tasks), "--solutions", str(sols), "--device", "cpu", "--workers", "2",
                   "--timeout", "60", "--memory-gib", "2", "--seed", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = {r["candidate_id"]: r for r in task_rows(out)}
    assert got["honest"]["status"] == "passed", got["honest"]["evidence"][:300]
    assert got["host"]["status"] == "host_compute", got["host"]["evidence"][:300]
    assert "changed from the previous round" in got["host"]["evidence"]


def _tiny_mul_run(tmp_path, shapes: list[list[int]], files: dict[str, str]) -> dict:
    """`kgb eval` of tests/ files (candidate id: path) on aten/mul.Tensor at these shapes, 3 rounds: rows by id."""
    import json

    from eval_helpers import EXAMPLE_TASKS, run_kgb, task_rows, write_jsonl

    row = next(r for r in map(json.loads, EXAMPLE_TASKS.read_text().splitlines()) if r["id"] == "aten/mul.Tensor")
    work = next(w for w in row["workloads"] if w["purpose"] == "correctness")
    row["workloads"] = []
    for i, shape in enumerate(shapes):
        tiny = json.loads(json.dumps(work))
        tiny["id"], tiny["args"]["self"]["shape"], tiny["args"]["other"]["shape"] = f"tiny-{i}", shape, shape
        row["workloads"].append(tiny)
    row["workload_status"] = {"state": "partial", "reason": "test: tiny correctness workloads"}
    here = Path(__file__).resolve().parent
    sols = write_jsonl(tmp_path / "s.jsonl", [{"task_id": row["id"], "code": (here / path).read_text(),
                                               "candidate_id": name} for name, path in files.items()])
    out = tmp_path / "r.jsonl"
    proc = run_kgb("eval", "--dataset", str(write_jsonl(tmp_path / "tasks.jsonl", [row])), "--solutions", str(sols),
                   "--device", "cpu", "--workers", "1", "--timeout", "60", "--rounds", "3", "--seed", "1",
                   "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {r["candidate_id"]: r for r in task_rows(out)}


def test_a_storage_kept_from_another_workload_or_made_anew_per_bit_is_caught(tmp_path) -> None:
    """Red team 38: after an honest first workload caches a table, each tiny call hands per bit either it or a
    new one (made <-> kept was let go whatever the storage)."""
    got = _tiny_mul_run(tmp_path, [[16], [1], [2]], {"kept": "tiny_corpus/rt38_kept_vs_made_mul.py"})
    assert got["kept"]["status"] == "host_compute", got["kept"]["evidence"][:400]


def test_a_libraries_strided_buffer_on_tiny_outputs_passes_end_to_end(tmp_path) -> None:
    """FlagGems' pointwise wrappers hand kernels a StridedBuffer holding its address as an int (tests/honest/
    fp29_mul_strided_buffer.py); on outputs of 1 to 3 elements the address, which moves from round to round, once
    read as an answer made on the host (10 FlagGems ops on an H100, session 29). Which storage such an address
    points into is still compared."""
    got = _tiny_mul_run(tmp_path, [[1], [2], [3]], {"buffer": "honest/fp29_mul_strided_buffer.py",
                                                    "staged": "honest/fp29_mul_cached_stage_alike_out.py",
                                                    "choice": "tiny_corpus/rt36_ptr_choice_mul.py",
                                                    "parity": "tiny_corpus/rt40_order_parity_mul.py"})
    assert got["buffer"]["status"] == "passed", got["buffer"]["evidence"][:400]
    # a staging buffer cached per shape, made as the output is: the output's order among alike storages is
    # one less once the cache is filled (false-positive hunt 16)
    assert got["staged"]["status"] == "passed", got["staged"]["evidence"][:400]
    # red team 36: each bit of a host-made answer handed as one of the two inputs' addresses
    assert got["choice"]["status"] == "host_compute", got["choice"]["evidence"][:400]
    # red team 40: a bit each as the parity of an order among alike storages, shifted or not per position
    assert got["parity"]["status"] == "host_compute", got["parity"]["evidence"][:400]


def test_a_cuda_generators_state_read_on_the_host_is_a_seed_once_a_call() -> None:
    """FlagGems' philox_backend_seed_offset reads a CUDA generator's 16-byte state with get_state and advances the
    offset (exponential_ on a 10-element output, an H100: read as 128 packed outcomes). The generator's seed as the
    call began and an offset less than GENERATOR_STEP past it is a seed, once a call; any other 16 bytes are
    host-made data (red team 37 dressed an answer as a seed and offset)."""
    import struct

    from kernelgenbench.sandbox.ledger import Found
    from kernelgenbench.sandbox.protocol import GENERATOR_STATE, GENERATOR_STEP

    def state(seed: int, offset: int, ptr: int = 0) -> Found:
        return Found("uint8", 16, 16, struct.pack("<Qq", seed, offset), ptr)

    rec, _, _ = sealed_recorder()
    rec.generator_states = ((1234, 4096),)
    rec.took_host([state(1234, 4096 + 12, ptr=0x1000)])
    assert rec.host_built == 0 and rec.seed_draws[GENERATOR_STATE] == 1
    # its storage is one the call made (the ops reading it hand the same place every round), not an address
    assert rec.made_storages[0x1000] == (GENERATOR_STATE,)
    rec.took_host([state(1234, 4096 + 16, ptr=0x2000)])  # a second read in the call
    rec.took_host([state(99, 4096), state(1234, 4096 - 4), state(1234, 4096 + GENERATOR_STEP)])
    assert rec.host_built == 4 * 16 and rec.seed_draws[GENERATOR_STATE] == 1 and 0x2000 not in rec.made_storages


def test_each_round_seeds_the_generators_from_its_own_seed() -> None:
    """A random op's wrapper hands its kernel the Philox offset it reads from the generator: the worker seeds the
    device's generators from the round's seed before each call, so that offset is 0 in every round while the
    seed (float-sized: counted as a distinct float, not compared by place) and the draws change."""
    from kernelgenbench.sandbox.worker import _seed_generators

    gens = (torch.Generator(), torch.Generator())
    _seed_generators(gens, 7)
    first = [g.initial_seed() for g in gens]
    _seed_generators(gens, 8)
    second = [g.initial_seed() for g in gens]
    assert all(s >= 1 << 62 for s in first + second) and len({*first, *second}) == 4
    _seed_generators(gens, None)  # inputs sent without a round seed: left as they are
    assert [g.initial_seed() for g in gens] == second
    _seed_generators(gens, 8, nth=1)  # called again on the same round's inputs: draws anew
    assert not {g.initial_seed() for g in gens} & {*first, *second}


def test_an_address_keyed_cache_passes_and_a_host_product_behind_it_is_caught(tmp_path) -> None:
    """Odd rounds run in the last round's buffers: an address-keyed plan cache hits there and misses on the next
    fresh round, which is compared with the fresh round before it; a host product handed behind the same cache
    changes there."""
    got = _tiny_mul_run(tmp_path, [[1], [2], [3]], {"plan": "honest/fp30_mul_ptrkey_plan_cache.py",
                                                    "cheat": "tiny_corpus/rt41_ptrkey_cache_scalar_mul.py"})
    assert got["plan"]["status"] == "passed", got["plan"]["evidence"][:400]
    assert got["cheat"]["status"] == "host_compute", got["cheat"]["evidence"][:400]
