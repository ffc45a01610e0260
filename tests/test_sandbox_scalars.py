"""The scalars a launch or an op is handed (sandbox/scalars.py): read without the candidate's code, logged by
position, and compared with the previous round place by place."""

from __future__ import annotations

import collections

import numpy as np
import torch
import triton.language as tl

from kernelgenbench.sandbox.scalars import ScalarLog, leaves
from kernelgenbench.sandbox.worker import _remember_workspaces


def test_every_scalar_is_a_leaf_in_walk_order_and_text_counts_by_chunks():
    found = list(leaves((3, 2.5, "abcdefgh", b"xy", collections.deque([7]), {"k": 2**30}, tl.constexpr((5,)))))
    assert found == [("small", 3), ("number", 2.5), ("text", (0, "abcd")), ("text", (4, "efgh")),
                     ("text", (0, b"xy")), ("small", 7), ("text", (0, "k")), ("number", 2**30), ("small", 5)]


def test_a_tensor_arguments_place_in_its_storage_is_a_leaf():
    scratch = torch.zeros(1 << 16, dtype=torch.uint8)
    at = ("store", (scratch.untyped_storage().data_ptr(), 1 << 16))
    assert list(leaves((scratch[40503:40504],))) == [("meta", 40503), ("meta", 1), ("meta", 1),
                                                     ("dtype", "torch.uint8"), at]
    t = torch.zeros(2, 3)
    assert list(leaves([t.t()])) == [("meta", 0), ("meta", 3), ("meta", 2), ("meta", 1), ("meta", 3),
                                     ("dtype", "torch.float32"), ("store", (t.untyped_storage().data_ptr(), 24))]
    # one storage viewed as float32 or as int32 is two values (red team 39: a bit of the answer each)
    assert list(leaves((t.view(torch.int32),))) != list(leaves((t,)))


def test_a_tensor_is_logged_as_which_storage_it_is_an_input_an_older_one_or_one_made_in_the_call():
    x, table, scratch = torch.zeros(4), [torch.full((1,), i) for i in range(3)], torch.zeros(4)
    ptr = {id(t): t.untyped_storage().data_ptr() for t in (x, scratch, *table)}
    older = frozenset(ptr[id(t)] for t in table)

    def log(pick: int) -> ScalarLog:
        out = ScalarLog()
        out.places({ptr[id(x)]: "self"}, older)
        out.start("k")
        out.add((x, table[pick], torch.zeros(4)))
        return out

    first = log(0)
    assert ("place", ("input", "self")) in first.calls["k"][0] and ("place", ("made", ("launch",))) in first.calls["k"][0]
    assert log(0).changed(first) == 0  # inputs and fresh allocations are no channel
    assert log(2).changed(first) == 1  # which of the tables made at import it hands: one value per launch


def test_values_are_read_through_their_base_type_not_the_candidates_methods():
    class Lies(float):
        def __float__(self):
            return 0.0

    class Small(int):
        def __int__(self):
            return 0

    class Text(str):
        def __getitem__(self, i):
            return "x"

    assert list(leaves((Lies(1.5), Small(7), Text("abcd")))) == [("number", 1.5), ("small", 7), ("text", (0, "abcd"))]


def test_bools_dtypes_and_numpy_scalars_are_leaves():
    assert list(leaves((True, np.bool_(False), torch.int16, np.float32(2.0), np.arange(2)))) == [
        ("bool", True), ("bool", False), ("dtype", "torch.int16"), ("number", 2.0), ("small", 0), ("small", 1)]


def test_objects_are_walked_through_their_dict_and_slots():
    class Slotted:
        __slots__ = ("a", "b")

        def __init__(self):
            self.a, self.b = 4, "xy"

    class Plain:
        def __init__(self):
            self.c = 5

    assert list(leaves((Slotted(), Plain()))) == [("small", 4), ("text", (0, "xy")), ("small", 5)]


def test_past_the_limit_the_rest_is_counted_as_overflow():  # the limit counts containers too
    assert list(leaves(tuple(range(10)), limit=5)) == [("small", 0), ("small", 1), ("small", 2), ("small", 3),
                                                       ("overflow", 6)]


def _log(*launches: tuple) -> ScalarLog:
    log = ScalarLog()
    for name, values in launches:
        log.start(name)
        log.add(values)
    return log


def test_host_values_and_tensor_places_can_be_left_out_of_the_count():
    def log(offset: int, value: bytes) -> ScalarLog:
        out = _log(("k", (torch.zeros(64)[offset:offset + 8], 2.5)))
        out.add_host("float32", value + bytes(4))
        return out

    before = log(0, b"\x00\x00\x80?")
    assert log(8, b"\x00\x00\x00@").changed(before) == 2  # the place and the first host word
    assert log(8, b"\x00\x00\x00@").changed(before, frozenset({"meta"})) == 1
    assert log(8, b"\x00\x00\x00@").changed(before, frozenset({"host"})) == 1
    no_host = _log(("k", (torch.zeros(64)[:8], 2.5)))
    assert no_host.changed(before, frozenset({"host"})) == 0  # a host call missing leaves the kernel order alone


def test_a_round_counts_the_scalars_the_previous_round_did_not_hand_at_the_same_place():
    sizes = ("k", (4, 3, 1024))
    assert _log(sizes).changed(None) == 0  # the first round: nothing to compare with
    assert _log(sizes).changed(_log(sizes)) == 0  # same shapes, same sizes
    assert _log(("k", (4, 3, 1024, 12345, 777))).changed(_log(sizes)) == 2


def test_bits_padded_with_their_complement_still_count_by_position():
    bits = [1, 0, 1, 1, 0, 0, 1, 0]
    other = [0, 1, 1, 0, 1, 0, 0, 1]
    now = _log(("k", (*bits, *(1 - b for b in bits))))
    before = _log(("k", (*other, *(1 - b for b in other))))
    assert now.changed(before) == 2 * sum(a != b for a, b in zip(bits, other, strict=True))


def test_an_autotuners_extra_first_round_launches_are_aligned_from_the_end():
    configs = [("k", (n, 64)) for n in (32, 64, 128)]
    tuned = _log(*configs, ("k", (128, 64)))  # the first round benchmarks every config, then launches the best
    assert _log(("k", (128, 64))).changed(tuned) == 0


def test_floats_are_counted_distinct_and_overflow_counts_as_changed():
    log = _log(("k", (0.5, 0.5, 1.5)), ("op", (0.5,)))
    assert len(log.floats) == 2
    signs = _log(("k", (0.0, -0.0, float(2**24), 2**24, float("nan"), float("nan"))))
    assert len(signs.floats) == 5  # by type and bits: -0.0 and 2.0**24 are values of their own; a NaN is one
    big = _log(("k", tuple(range(1 << 17))))
    assert big.changed(_log(("k", ()))) >= 1 << 16



def test_storages_handed_over_that_are_neither_inputs_nor_made_by_the_calls_ops_are_foreign():
    """Red team 16's pool of random values, drawn at import and read by each call's kernel: memory made before the
    call. Inputs, what the call's ops made, and views of either are not foreign; in-place ops make nothing."""
    from evidence_helpers import call_report, example_task

    from kernelgenbench.evaluator.checks.drawn_before import FOREIGN_LIMIT, judge
    from kernelgenbench.sandbox.dispatch import sealed_recorder

    pool = torch.rand(1 << 15)  # made before the call
    x = torch.zeros(100)
    rec, _, _ = sealed_recorder()
    log = ScalarLog()
    log.places({x.untyped_storage().data_ptr(): "self"}, frozenset(), rec.made_storages)
    with rec:
        out = torch.empty(100)
        out.add_(1)  # returns its argument's storage: made by empty, not by add_
        table = torch.tensor([[x.data_ptr(), 100]])  # made from host data (lift_fresh), fresh all the same
        log.start("k")
        log.add((x, out, out[10:], table))
    assert log.foreign == {}
    log.add((pool[5:],))
    log.note_foreign((pool,))
    assert log.foreign == {pool.untyped_storage().data_ptr(): pool.untyped_storage().nbytes()}
    bern, add = example_task("aten/bernoulli.p"), example_task("aten/add.Tensor")
    assert "memory made before the call" in judge(bern, call_report(foreign_bytes=FOREIGN_LIMIT))
    assert judge(bern, call_report(foreign_bytes=FOREIGN_LIMIT - 1)) is None  # a table of constants
    assert judge(add, call_report(foreign_bytes=1 << 30)) is None  # only a sampler's draws are its work


def test_which_older_storage_a_launch_gets_is_a_value_but_a_workspace_growing_old_is_not():
    """Red team 18 chose, per byte of a tiny answer, one of 256 tables made at import: older -> another older
    counts even where places are left out; made in the first call -> kept from it in the next does not; made ->
    a table made at import does (red team 37: one bit per argument)."""
    tables = [torch.zeros(1, dtype=torch.int32) for _ in range(3)]
    workspace = torch.zeros(4)
    at = workspace.untyped_storage().data_ptr()

    def launch(t: torch.Tensor, made: dict[int, int], before: dict[int, int] | None = None) -> ScalarLog:
        log = ScalarLog()
        log.places({}, frozenset(), made, before=before)
        log.start("k")
        log.add((t,))
        return log

    first = launch(tables[0], {})
    assert launch(tables[1], {}).changed(first, frozenset({"place"})) == 1
    assert launch(tables[0], {}).changed(first, frozenset({"place"})) == 0
    made = launch(workspace, {at: 0})
    assert launch(workspace, {}, before={at: 0}).changed(made, frozenset({"place"})) == 0
    assert launch(tables[0], {}).changed(made, frozenset({"place"})) == 3  # its place, size and dtype


def test_which_tensor_made_in_the_call_an_op_reads_is_a_value_where_their_contents_differ_by_host_values():
    """Red team 31 made 256 tensors per call (`full((9,), b)`, or `empty(0).resize_(9).fill_(b)`) and had `copy_`
    read the one a byte of the answer named: a made storage's place is how its content was made (the op or
    launch and the host values it was handed), which a workspace cached at the first call does not shift."""
    from kernelgenbench.sandbox.dispatch import sealed_recorder

    def call(picks: list[int], cache_fill: bool) -> ScalarLog:
        rec, _, _ = sealed_recorder()
        rec.scalars.places({}, frozenset(), rec.made_storages)
        with rec:
            if cache_fill:
                torch.empty(64)  # a workspace made at the first call only
            tables = [torch.full((9,), float(b)) for b in range(4)] + [torch.empty(0).resize_(9).fill_(b + 10.0)
                                                                       for b in range(4)]
            acc = torch.zeros(9)  # made after the tables: its order shifts with the cache fill, its content not
            out = torch.empty(9)
            for p in picks:
                out.copy_(tables[p])
            out.add_(acc)
        return rec.scalars

    first = call([0, 5, 2], cache_fill=True)
    assert call([0, 5, 2], cache_fill=False).changed(first, frozenset({"place"})) == 0
    # the source, then the destination the next copy finds holding it
    assert call([1, 5, 2], cache_fill=False).changed(first, frozenset({"place"})) == 2
    assert call([0, 6, 2], cache_fill=False).changed(first, frozenset({"place"})) == 2  # grown by resize_, filled


def test_a_made_storage_a_launch_wrote_is_known_by_the_launchs_host_values():
    """Tables written by a Triton launch handed the byte each should hold: the launch's numbers tell them apart."""
    from kernelgenbench.sandbox.dispatch import sealed_recorder

    def call(pick: int) -> ScalarLog:
        rec, _, _ = sealed_recorder()
        rec.scalars.places({}, frozenset(), rec.made_storages)
        with rec:
            tables = [torch.empty(9) for _ in range(3)]
            for b, t in enumerate(tables):
                rec.paused += 1  # as the launch counter does around a launch
                rec.launch_ends([t, b, 9])
                rec.paused -= 1
            torch.empty(9).copy_(tables[pick])
        return rec.scalars

    assert call(1).changed(call(1), frozenset({"place"})) == 0
    assert call(2).changed(call(1), frozenset({"place"})) == 1


def test_a_number_a_one_element_input_held_is_the_input_not_a_host_value():
    """PyTorch's wrapped-number idiom (a 0-d divisor read with .item() and passed to the kernel by value): a
    launch handed the number a one-element input held when the call began is logged as the input; a small int
    is not (it would relabel shape numbers equal to it), nor a number the call made."""

    def launch(divisor: float, count: int, made: float) -> ScalarLog:
        log = ScalarLog()
        log.places({}, frozenset(), {}, values=[divisor, count])
        log.start("k")
        log.add((divisor, count, 0.5, made))
        return log

    first = launch(2.5, 3, 1.0)
    assert first.calls["k"][0][:2] == [("input", "value"), ("small", 3)]
    assert launch(-7.25, 3, 1.0).changed(first) == 0 and len(first.floats) == 2  # 0.5 and 1.0 are host numbers
    assert launch(1.5, 4, 1.0).changed(first) == 1  # the small int is compared
    assert launch(1.5, 3, 3.0).changed(first) == 1  # and so is a number no input held


def test_numbers_the_candidate_spells_or_holds_at_import_are_no_distinct_host_values(tmp_path):
    """A libm-style kernel handed its polynomial coefficients as a constexpr tuple (false-positive hunt 12): numbers
    written in the source, or held by the module's globals right after its import, exist before any call's data;
    they stay out of the distinct floats and are still compared by position with the previous round."""
    import triton.language as tl

    from kernelgenbench.sandbox.scalars import module_numbers, source_numbers

    src = tmp_path / "c.py"
    src.write_text("SCALE = 0.25\n")
    loop = [0.5]
    loop.append(loop)
    held = module_numbers({"C": (1.0 / 3.0, [1.0 / 7.0]), "K": tl.constexpr(2.0 / 9.0), "L": loop, "N": 3})
    literals = source_numbers(str(src)) | held

    def launch(extra: float) -> ScalarLog:
        log = ScalarLog()
        log.places({}, frozenset(), {}, literals=literals)
        log.start("k")
        log.add((0.25, -0.25, 1.0 / 3.0, 1.0 / 7.0, 2.0 / 9.0, 0.5, extra))
        return log

    first = launch(1.5)
    assert len(first.floats) == 1  # 1.5 alone
    assert launch(2.5).changed(first) == 1


def test_which_view_a_clone_or_launch_read_tells_made_tables_apart_and_a_cached_workspace_does_not():
    """Red team 33 made its byte tables by cloning `base[b:b+1].expand(16)`: a provenance holds every scalar an op
    was handed, the view's offset included. A workspace made at the first call and handed to a launch at the next
    folds into the launch's provenance as it was made, so what the launch writes is the same place both rounds."""
    from kernelgenbench.sandbox.dispatch import sealed_recorder

    def tables(pick: int) -> ScalarLog:
        rec, _, _ = sealed_recorder()
        rec.scalars.places({}, frozenset(), rec.made_storages)
        with rec:
            base = torch.arange(4.0)
            vals = [base[b:b + 1].expand(16).clone() for b in range(4)]
            torch.empty(16).copy_(vals[pick])
        return rec.scalars

    assert tables(2).changed(tables(1), frozenset({"place"})) == 1

    kept: dict = {}
    origins: dict = {}

    def call() -> ScalarLog:
        rec, _, _ = sealed_recorder()
        rec.carry(kept, origins)
        rec.scalars.places({}, frozenset(), rec.made_storages, before=rec.carried)
        with rec:
            if "ws" not in cache:
                cache["ws"] = torch.empty(8)
            res = torch.empty(1)
            rec.paused += 1  # a launch reading the workspace, writing res
            rec.launch_ends([cache["ws"], res, 8])
            rec.paused -= 1
            torch.empty(1).copy_(res)
        _remember_workspaces(kept, origins, rec)
        return rec.scalars

    cache: dict = {}
    first = call()
    assert call().changed(first, frozenset({"place"})) == 0


def test_a_workspace_zeroed_once_where_it_was_made_is_the_same_place_in_the_next_call():
    """False-positive hunt 15 (apex-style status flags): a buffer made with `empty` and zeroed once, cached, and
    pointed at from a host-made table of addresses each call. The call that made it labels it by the zeroing;
    the next one, by how the last call left it (the zeroing), not by the `empty` alone. One zeroed every call
    keeps one label too; one filled from host data each call does not."""
    from kernelgenbench.sandbox.dispatch import sealed_recorder

    def run(body) -> list[ScalarLog]:
        kept, origins, sizes, cache, logs = {}, {}, {}, {}, []
        for _ in range(3):
            rec, _, _ = sealed_recorder()
            rec.carry(kept, origins)
            rec.scalars.places({}, frozenset(), rec.made_storages, before=rec.carried,
                               spans={p: n for p, n in sizes.items() if p in rec.carried})
            with rec:
                out = torch.empty(2)
                body(cache)
                ws = cache["ws"]
                torch.tensor([ws.data_ptr(), ws.data_ptr() + 4], dtype=torch.int64)  # the table
                out.copy_(ws[:2])
            _remember_workspaces(kept, origins, rec)
            sizes.update(rec.made_bytes)
            logs.append(rec.scalars)
        return logs

    def once(cache):
        if "ws" not in cache:
            cache["ws"] = torch.empty(8)
            cache["ws"].zero_()

    def every(cache):
        cache.setdefault("ws", torch.empty(8)).zero_()

    values = iter([1.5, 2.5, 3.5])

    def host(cache):
        cache.setdefault("ws", torch.empty(8)).copy_(torch.tensor([next(values)] * 8))

    for body in (once, every):
        logs = run(body)
        # the first call's setup ops (empty, zero_) are in its sequence of op names alone: that counts once
        assert [logs[i].differences(logs[i - 1], frozenset({"place"})) for i in (1, 2)] == [[], []], body.__name__
        assert logs[2].changed(logs[1], frozenset({"place"})) == 0, body.__name__
        assert logs[2].changed(logs[1], frozenset({"host"})) == 0, body.__name__
    logs = run(host)
    assert logs[2].changed(logs[1], frozenset({"place"})) > 0


def test_the_tensors_one_launch_wrote_are_told_apart_by_which_argument_each_was():
    """Red team 34 had one launch write nibble i into table i of 16 and copy_ read the table a nibble named."""
    from kernelgenbench.sandbox.dispatch import sealed_recorder

    def call(pick: int) -> ScalarLog:
        rec, _, _ = sealed_recorder()
        rec.scalars.places({}, frozenset(), rec.made_storages)
        with rec:
            tables = [torch.empty(9) for _ in range(4)]
            rec.paused += 1
            rec.launch_ends(tables)
            rec.paused -= 1
            torch.empty(9).copy_(tables[pick])
        return rec.scalars

    assert call(2).changed(call(1), frozenset({"place"})) == 1


class _StridedBuffer:
    """FlagGems' StridedBuffer in small (flag_gems/utils/tensor_wrapper.py): the base tensor and the address of its
    data as a Python int, which Triton reads through `data_ptr()`."""

    def __init__(self, base: torch.Tensor, offset: int = 0) -> None:
        self._base, self.dtype, self.offset = base, base.dtype, offset
        self._data_ptr = base.data_ptr() + base.element_size() * offset
        self.shape = tuple(base.shape)

    def data_ptr(self) -> int:
        return self._data_ptr


def test_an_address_a_buffer_holds_as_an_int_is_its_storage_and_offset_not_a_host_number():
    """A strided buffer's address moves with the allocator (10 FlagGems ops with 1-element outputs judged
    host_compute on an H100 for it): logged as the storage it points into and the offset, it repeats from round to
    round; an offset that carries a value is still counted, by the bits it carries."""

    def launch(offset: int = 0) -> ScalarLog:
        x = torch.randn(1 << 10)  # a new allocation each round
        log = ScalarLog()
        log.places({x.untyped_storage().data_ptr(): "self"}, frozenset())
        log.start("k")
        log.add((_StridedBuffer(x, offset), 7))
        return log

    first = launch()
    assert ("number" not in {kind for kind, _ in first.calls["k"][0]}) and not first.floats
    assert launch().changed(first, frozenset({"host"}), weigh=True) == 0
    assert launch().changed(first, frozenset({"place"})) == 0
    moved = launch(offset=0x2A5)  # the buffer's own offset (3 nibbles) and the address's: 0xA94 bytes (4)
    assert moved.changed(first, frozenset({"place"})) == 2
    assert moved.changed(first, frozenset({"host"}), weigh=True) == 7
    assert "('meta', 0) -> ('meta', 2708)" in moved.differences(first, frozenset({"place"}))[-1]


def test_an_int_past_every_storage_handed_over_is_still_a_host_number():
    x = torch.randn(16)
    log = ScalarLog()
    log.places({}, frozenset())
    log.start("k")
    log.add((x, x.untyped_storage().data_ptr() + 64 + 4, 1 << 30))
    assert [leaf for leaf in log.calls["k"][0] if leaf[0] == "number"] == [("number", ("i", x.untyped_storage().data_ptr() + 68)),
                                                                           ("number", ("i", 1 << 30))]


def test_storages_made_alike_in_a_call_are_told_apart_by_their_order_among_themselves():
    """Red team 37 made two `zeros(n)` per call and handed a kernel one of them per bit of the answer: equal
    provenances were one place. The k-th storage made with one provenance is known as such."""
    from kernelgenbench.sandbox.dispatch import sealed_recorder

    rec, _, _ = sealed_recorder()
    rec.scalars.places({}, frozenset(), rec.made_storages)
    with rec:
        a, b, c = torch.zeros(4), torch.zeros(4), torch.zeros(5)
    pa, pb, pc = (rec.made_storages[t.untyped_storage().data_ptr()] for t in (a, b, c))
    assert pa[:-1] == pb[:-1] and (pa[-1], pb[-1], pc[-1]) == (1, 2, 1)


def test_a_tensor_made_alike_to_a_cache_the_previous_round_filled_is_one_lower_in_order():
    """False-positive hunt 16: a staging buffer cached per shape is made as the output is, so the output is the
    second alike storage in the round that fills the cache and the first after. It must be exactly that much lower:
    an order kept where it should have shifted, or shifted where it should not, is a storage chosen (red team 40
    chose per bit between the two)."""
    from kernelgenbench.sandbox.scalars import _Moves, _place_moved

    cache = 0x7000
    moves = _Moves({cache: ("empty", 0, 1)}, {("empty", 0): [1]})  # the cache was the first made alike

    def made(order: int, rewrite: tuple = ()) -> tuple:
        return ("made", (*rewrite, ("empty", 0, order)) if rewrite else ("empty", 0, order))

    assert not _place_moved(made(1), made(2), moves)  # made after the cache: one lower now
    assert _place_moved(made(2), made(2), moves)  # not lower: chosen
    assert _place_moved(made(2), made(1), moves) and _place_moved(made(1), made(2), _Moves({}, {}))
    before_cache = _Moves({cache: ("empty", 0, 2)}, {("empty", 0): [2]})  # the cache made after it: no shift
    assert not _place_moved(made(1), made(1), before_cache) and _place_moved(made(0), made(1), before_cache)
    assert not _place_moved(made(1, ("launch", 5, 0)), made(2, ("launch", 5, 0)), moves)
    assert not _place_moved(("kept", cache), made(1), moves)  # the cache itself, kept
