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
    assert compute_ops(rec.ops, category="elementwise") == []
    rec = DispatchRecorder()
    with rec:
        y = x + 1
        y.sum()
    assert compute_ops(rec.ops, category="elementwise") == ["aten::add.Tensor", "aten::sum"]


def test_copies_count_as_compute_for_copy_tasks_and_paused_ops_are_ignored():
    x = torch.randn(4)
    rec = DispatchRecorder()
    with rec:
        x.clone()
        rec.paused += 1
        x * 2  # as if inside a Triton launch (the interpreter's own host copies)
        rec.paused -= 1
    assert compute_ops(rec.ops, category="copy") == ["aten::clone"]
    assert compute_ops(rec.ops, category="elementwise") == []
    assert rec.in_launch["aten::mul.Tensor"] == 1


def test_launches_that_compile_a_kernel_variant_are_timed_as_compile():
    """A compile is a new variant in triton's own JITFunction cache and a module loaded onto the device; the
    interpreter never compiles, and a kernel object of another class that grows a cache says nothing (red team
    17 faked a compile that way to skip a round's comparison)."""
    import time as time_mod

    from triton.runtime.jit import JITFunction

    from kernelgenbench.sandbox import launches
    from kernelgenbench.sandbox.launches import LaunchCounter

    def run(kernel, *args, grid, warmup, **kwargs):
        variants = kernel.device_caches[0][0]
        if args[0] not in variants:  # a new variant: compiled, and its module loaded
            time_mod.sleep(0.05)
            variants[args[0]] = object()
            launches._on_kernel_load(None, None, "k", None, None)

    def jit_function() -> JITFunction:
        k = object.__new__(JITFunction)
        k.__dict__["device_caches"] = {0: ({}, "target")}
        return k

    counter = LaunchCounter()
    launch = counter._wrap_run(run, count=False)  # a device launch: the launch hook counts it
    k = jit_function()
    launch(k, "a", grid=(1,), warmup=False)
    first = counter.compile_s
    launch(k, "a", grid=(1,), warmup=False)  # cached: not compile time
    assert first >= 0.05 and counter.compile_s == first
    launch(k, "b", grid=(1,), warmup=False)
    assert counter.compile_s >= first + 0.05

    class Fake:  # not triton's class: its cache is the candidate's to fake
        def __init__(self):
            self.device_caches = {0: ({}, "target")}

    for kernel, interpreted in ((Fake(), False), (jit_function(), True)):
        other = LaunchCounter()
        other._wrap_run(run, count=interpreted)(kernel, "a", grid=(1,), warmup=False)
        assert other.compile_s == 0.0


# --- the allowlist derived from torch's registry -------------------------------------------------------

def _aten_overloads():
    """Every aten overload the installed torch registers with its dispatcher, by recorder name."""
    out = []
    for full in torch._C._dispatch_get_all_op_names():
        if not full.startswith("aten::"):
            continue
        base, _, overload = full[len("aten::"):].partition(".")
        packet = getattr(torch.ops.aten, base, None)
        op = getattr(packet, overload or "default", None) if packet is not None else None
        if op is not None:
            out.append((full, op))
    return out


def test_registry_ops_that_compute_nothing_are_allowed_and_compute_is_not():
    from kernelgenbench.evaluator.dispatch_guard import OpClass, classify_overload

    allowed = ["aten::promote_types", "aten::result_type.Tensor", "aten::result_type.Scalar_Scalar",
               "aten::can_cast", "aten::sym_size.int", "aten::sym_stride.int", "aten::sym_numel",
               "aten::is_same_size", "aten::is_contiguous", "aten::view", "aten::t_", "aten::set_.source_Storage",
               "aten::empty.memory_format", "aten::new_empty", "aten::zeros", "aten::fill_.Scalar"]
    compute = ["aten::equal", "aten::allclose", "aten::add.Tensor", "aten::sum", "aten::mm", "aten::add.out",
               "aten::index_put_", "aten::_assert_async", "aten::sum.dim_IntList", "aten::where.self",
               "aten::is_nonzero", "aten::_nested_tensor_from_mask_left_aligned"]
    for name in allowed:
        assert classify_overload(name) is not OpClass.COMPUTE, name
    for name in compute:
        assert classify_overload(name) is OpClass.COMPUTE, name
    assert compute_ops({n: 1 for n in allowed}, category="elementwise") == []
    assert compute_ops({n: 1 for n in compute}, category="elementwise") == compute


def test_every_derived_allowance_follows_the_schema():
    """Over the whole installed registry: metadata ops return no tensor, write nothing, read no data."""
    from kernelgenbench.evaluator.dispatch_guard import OpClass, classify_overload, policy

    seen: dict[OpClass, int] = {}
    for name, op in _aten_overloads():
        cls = classify_overload(name)
        seen[cls] = seen.get(cls, 0) + 1
        tags = {str(t).rsplit(".", 1)[-1] for t in op.tags}
        writes = any(a.alias_info is not None and a.alias_info.is_write for a in op._schema.arguments)
        if cls is OpClass.METADATA:
            assert not any("Tensor" in str(r.type) for r in op._schema.returns), name
            assert not writes and not tags & {"data_dependent_output", "pointwise"}, name
        if "data_dependent_output" in tags and name != "aten::_local_scalar_dense":
            assert cls is OpClass.COMPUTE, name
        if writes and "inplace_view" not in tags and cls is not OpClass.COMPUTE:
            # an in-place write allowed only by the YAML's fill/copy policy
            assert cls in (OpClass.ALLOCATION, OpClass.FILL, OpClass.COPY), name
    for packet in policy().reads_data | policy().allocation | policy().fills | policy().copy | policy().aliases:
        ns, _, base = packet.rpartition("::")  # the policy names only ops this torch has
        assert hasattr(getattr(torch.ops, ns or "aten"), base), packet
    assert seen[OpClass.METADATA] >= 40 and seen[OpClass.VIEW] >= 100 and seen[OpClass.COMPUTE] >= 1500


def test_names_match_with_namespace_and_known_overloads_only():
    from kernelgenbench.evaluator.dispatch_guard import OpClass, classify_overload, classify_recorded

    assert classify_overload("aten::empty_like") is OpClass.ALLOCATION
    assert classify_overload("kgb_evil::empty_like") is OpClass.COMPUTE  # custom op named like an allowed one
    assert classify_overload("aten::empty_like.kgb_evil") is OpClass.COMPUTE  # an overload torch does not define
    assert classify_overload("aten::no_such_op") is OpClass.COMPUTE
    assert classify_recorded("empty_like") is OpClass.COMPUTE


def test_a_custom_op_named_like_an_allowed_one_is_compute():
    lib = torch.library.Library("kgb_test_guard", "FRAGMENT")
    lib.define("promote_types(Tensor x) -> Tensor")
    lib.impl("promote_types", lambda x: x * 2, "CompositeExplicitAutograd")
    rec = DispatchRecorder()
    with rec:
        torch.ops.kgb_test_guard.promote_types(torch.ones(3))
    assert compute_ops(rec.ops, category="elementwise") == ["kgb_test_guard::promote_types"]


def test_scalar_reads_are_bounded():
    x = torch.arange(40.0)
    rec = DispatchRecorder()
    with rec:
        torch.empty(1).fill_(3).item()
    assert compute_ops(rec.ops, category="elementwise") == []
    rec = DispatchRecorder()
    with rec:
        [x[i].item() for i in range(40)]  # host compute, one element at a time
    found = compute_ops(rec.ops, category="elementwise")
    assert len(found) == 1 and found[0].startswith("40 scalar reads")


def test_profiler_names_are_packets_and_composites_count_through_their_parts():
    from kernelgenbench.evaluator.dispatch_guard import OpClass, classify_recorded

    assert classify_recorded("aten::add") is OpClass.COMPUTE
    assert classify_recorded("aten::add.Tensor") is OpClass.COMPUTE
    assert classify_recorded("aten::empty") is OpClass.ALLOCATION
    for composite in ("aten::matmul", "aten::item", "aten::to", "aten::broadcast_tensors", "aten::promote_types"):
        assert classify_recorded(composite) is OpClass.DECOMPOSED, composite
    ops = {"aten::matmul": 2, "aten::mm": 2, "aten::empty": 4, "aten::set_": 2, "aten::slice": 1}
    assert compute_ops(ops, category="gemm", profiler=True) == ["aten::mm"]


def test_inside_a_launch_only_the_interpreters_argument_copies_are_excused():
    interp = {"aten::empty.memory_format": 14, "aten::set_.source_Storage": 14, "aten::new_empty": 9,
              "aten::set_.source_Storage_storage_offset": 9, "aten::copy_": 7}
    assert compute_ops(interp, category="elementwise", in_launch=True) == []
    assert compute_ops(interp, category="copy", in_launch=True) == []
    assert compute_ops({**interp, "aten::add.Tensor": 1}, category="elementwise", in_launch=True) == ["aten::add.Tensor"]
    extra = compute_ops({**interp, "aten::copy_": 12}, category="copy", in_launch=True)
    assert len(extra) == 1 and "12 copy_" in extra[0]
    assert compute_ops({**interp, "aten::clone": 1}, category="copy", in_launch=True) == ["aten::clone"]


def test_profiler_overload_names_of_composites_count_through_their_parts_too():
    from kernelgenbench.evaluator.dispatch_guard import OpClass, classify_recorded

    assert classify_recorded("aten::flatten.using_ints") is OpClass.DECOMPOSED
    assert classify_recorded("aten::is_nonzero") is OpClass.DECOMPOSED  # its _local_scalar_dense is recorded
    assert classify_recorded("aten::add.Tensor") is OpClass.COMPUTE  # a kernel of its own
    assert classify_recorded("aten::empty_like.kgb_evil") is OpClass.COMPUTE


def test_honest_bookkeeping_recorded_by_both_recorders_is_not_compute():
    """The prologue real kernels write around their launches, seen by the dispatch mode and the profiler."""
    from collections import Counter

    from kernelgenbench.sandbox.dispatch import sealed_recorder

    x, y = torch.randn(4, 8), torch.randn(8, dtype=torch.float16)
    rec, check, _ = sealed_recorder()
    config = torch._C._profiler._ExperimentalConfig(profile_all_threads=True, capture_overload_names=True)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], experimental_config=config) as p, rec:
        torch.tensor([1, 2, 3])
        x.new_tensor([2.0])
        y.to(torch.float32)
        x.t().contiguous()
        x.reshape(-1)
        x.flatten()
        torch.broadcast_tensors(x, y)
        x.expand(2, 4, 8)
        x[1:3]
        x.select(0, 1)
        torch.empty_like(x)
        torch.zeros(3, dtype=torch.int32)
        torch.full((2,), 7.0)
        torch.result_type(x, 2.0)
        torch.promote_types(x.dtype, y.dtype)
        bool(torch.ones(1))
        torch.empty(1).fill_(1.5).item()
        x.unbind(0)
        x.chunk(2)
        x.movedim(0, 1)
        torch.empty_strided((2, 2), (1, 2))
        x.view(torch.int32)
        torch.atleast_2d(x)
    assert check(0) == []
    assert compute_ops(rec.ops, category="elementwise") == []
    cpu_ops = Counter(f"{e.name}.{e.overload_name}" if e.overload_name else e.name for e in p.events()
                      if e.name.startswith("aten::"))
    assert len(cpu_ops) > 20
    assert compute_ops(cpu_ops, category="elementwise", profiler=True) == []
    assert compute_ops(cpu_ops, category="copy", profiler=True)  # the copies are the work of a copy task


def test_fills_are_the_work_of_creation_tasks():
    rec = DispatchRecorder()
    with rec:
        torch.full((3,), 2.0)
        torch.empty(3).fill_(1.0)
        torch.empty(4)
    assert compute_ops(rec.ops, category="elementwise") == []
    assert compute_ops(rec.ops, category="creation") == ["aten::full", "aten::fill_.Scalar"]


def test_a_copy_does_the_work_of_creation_and_embedding_tasks_and_a_negated_view_is_compute():
    """Red team 31: `self.copy_(value.expand_as(self))` is a fill; rows copied one by one are an embedding;
    `out.copy_(torch._neg_view(x))` negates in torch's copy kernel."""
    rec = DispatchRecorder()
    x = torch.randn(4)
    with rec:
        out = torch.empty(4)
        out.copy_(torch.tensor(1.0).expand(4))
    assert compute_ops(rec.ops, category="elementwise") == []
    for category in ("creation", "embedding"):
        assert compute_ops(rec.ops, category=category) == ["aten::copy_"]
    rec = DispatchRecorder()
    with rec:
        torch.empty(4).copy_(torch._neg_view(x))
    assert compute_ops(rec.ops, category="elementwise") == ["aten::_neg_view"]


def test_an_op_outside_aten_is_metadata_only_when_it_can_touch_no_tensor():
    # Liger-Kernel's call reaches torchvision::_cuda_version (a version probe): it computes nothing. A custom
    # op that takes or returns a tensor is compute whatever its name.
    import torch

    from kernelgenbench.evaluator.dispatch_guard import OpClass, classify_overload, classify_recorded

    lib = torch.library.Library("kgb_foreign_test", "DEF")
    lib.define("version() -> int")
    lib.define("clone(Tensor x) -> Tensor")
    lib.define("fill(Tensor(a!) x) -> ()")
    for classify in (classify_overload, classify_recorded):
        assert classify("kgb_foreign_test::version") is OpClass.METADATA
        assert classify("kgb_foreign_test::clone") is OpClass.COMPUTE
        assert classify("kgb_foreign_test::fill") is OpClass.COMPUTE
        assert classify("kgb_foreign_test::missing") is OpClass.COMPUTE
        # torch's own view built in C++ outside aten (inductor's pool allocator) is a view by the policy; its
        # neighbour that resizes a storage in place is not
        assert classify("inductor::_alloc_from_pool") is OpClass.VIEW
        assert classify("inductor::resize_storage_bytes_") is OpClass.COMPUTE


def test_the_recorder_skips_an_op_outside_aten_that_sees_no_tensor_in_or_out():
    # The evaluator's process has not loaded the library that defines such an op (torchvision, in Liger-Kernel's
    # import chain), so the worker decides from the call itself: no tensor in its arguments or its result.
    import torch

    from kernelgenbench.sandbox.dispatch import DispatchRecorder

    lib = torch.library.Library("kgb_probe_test", "DEF")
    lib.define("version() -> int")
    lib.define("make(int n) -> Tensor")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("version", lambda: 7, "CompositeExplicitAutograd")
    lib.impl("make", lambda n: torch.zeros(n), "CompositeExplicitAutograd")
    lib.impl("twice", lambda x: x * 2, "CPU")
    with DispatchRecorder() as rec:
        assert torch.ops.kgb_probe_test.version() == 7
        torch.ops.kgb_probe_test.make(3)
        torch.ops.kgb_probe_test.twice(torch.ones(2))
    assert "kgb_probe_test::version" not in rec.ops
    assert rec.ops["kgb_probe_test::make"] == 1
    assert rec.ops["kgb_probe_test::twice"] == 1


def test_a_composite_is_excused_only_where_its_recorded_parts_show_the_work():
    # Red team 3 (fbgemm_composite_mm): torch's FBGEMM composites call FBGEMM on an `empty` output, so their
    # only parts are fresh memory. Honest composites show the work beneath them, or return their input or views.
    from kernelgenbench.evaluator.dispatch_guard import unexplained_composites

    fbgemm = "aten::fbgemm_linear_fp16_weight_fp32_activation"
    ops = {fbgemm: 2, "aten::empty.memory_format": 2, "aten::resize_": 2, "aten::contiguous": 1, "aten::clone": 1}
    parts = {fbgemm: [["aten::empty.memory_format", "aten::resize_"],
                      ["aten::contiguous", "aten::empty.memory_format", "aten::resize_"]]}
    assert compute_ops(ops, category="gemm", profiler=True, parts=parts) == [fbgemm]
    # a copy or a fill beneath is fresh memory too, not work; one call of several is enough
    assert unexplained_composites([fbgemm], {fbgemm: [["aten::mm"], ["aten::zeros", "aten::copy_"]]}) == [fbgemm]
    assert unexplained_composites([fbgemm], {fbgemm: [["aten::empty", "aten::_local_scalar_dense"]]}) == [fbgemm]
    honest = {"aten::matmul": [["aten::mm", "aten::empty.memory_format"]],
              "aten::is_nonzero": [["aten::item"]], "aten::item": [["aten::_local_scalar_dense"]],
              "aten::broadcast_tensors": [[], ["aten::expand"]], "aten::atleast_2d": [[], ["aten::unsqueeze"]],
              "aten::contiguous": [["aten::clone"]],  # its schema says view: the clone beneath is judged itself
              "aten::to.dtype": [["aten::_to_copy"]], "aten::promote_types": [[]]}
    assert unexplained_composites(honest, honest) == []
    assert compute_ops({n: 1 for n in honest}, category="elementwise", profiler=True, parts=honest) == []
    assert compute_ops({"aten::matmul": 1, "aten::mm": 1}, category="gemm", profiler=True, parts=honest) == ["aten::mm"]
    # an op with a kernel of its own is judged by its class, whatever is beneath it
    assert unexplained_composites(["aten::add.Tensor", "aten::empty_like"], {"aten::empty_like": [["aten::empty"]]}) == []


def test_the_profile_keeps_every_namespace_and_each_ops_parts():
    # Red team 3 (nonaten_namespace_mm): oneDNN's GEMM with the Python key excluded is "mkldnn::..." in the
    # profile; the activity recorder once kept aten:: names only.
    import warnings

    from kernelgenbench.sandbox.activity import Session

    a, w = torch.randn(5, 7), torch.randn(3, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FBGEMM's fp16 ops are deprecated
        with Session("cpu", "kgb_test_launch") as s:
            with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Python)):
                torch.ops.mkldnn._linear_pointwise(a, w, None, "none", [], "")
            torch.fbgemm_linear_fp16_weight_fp32_activation(a, torch.fbgemm_pack_gemm_matrix_fp16(w), None)
            torch.atleast_2d(a)
            torch.broadcast_tensors(a, w[:1])
    rep = s.report(())
    assert rep["available"], rep
    assert "mkldnn::_linear_pointwise" in rep["cpu_ops"]
    parts = rep["cpu_op_parts"]
    assert parts["aten::fbgemm_linear_fp16_weight_fp32_activation"] == [["aten::empty.memory_format", "aten::resize_"]]
    assert parts["aten::atleast_2d"] == [[]] and parts["aten::broadcast_tensors"] == [["aten::expand"]]
    found = compute_ops(rep["cpu_ops"], category="gemm", profiler=True, parts=parts)
    assert sorted(found) == ["aten::fbgemm_linear_fp16_weight_fp32_activation", "aten::fbgemm_pack_gemm_matrix_fp16",
                             "mkldnn::_linear_pointwise"]


def test_a_candidates_own_profiler_range_is_no_op_whatever_its_name():
    # A kernel wrapper that annotates itself, `record_function("triton::rms_norm")`, is no dispatcher op (it
    # once read as one: torch_fallback); the ops under it still are.
    from kernelgenbench.sandbox.activity import Session

    x = torch.randn(8)
    with Session("cpu", "kgb_test_launch") as s:
        with torch.profiler.record_function("triton::rms_norm"):
            torch.add(x, x)
    rep = s.report(())
    assert rep["available"], rep
    assert "triton::rms_norm" not in rep["cpu_ops"] and "aten::add.Tensor" in rep["cpu_ops"], rep["cpu_ops"]


def test_an_op_known_only_by_the_workers_schemas_is_judged_by_them():
    # Liger's first call on a GPU imports torchvision and torchaudio, whose import calls their version probes: ops
    # the evaluator's process never registered, judged by the schemas the worker sends.
    schemas = {"torchvision::_cuda_version": ["torchvision::_cuda_version() -> int"],
               "_torchaudio::cuda_version": ["_torchaudio::cuda_version() -> int?"],
               "lib::fill": ["lib::fill(Tensor(a!) out, float v) -> ()"],
               "lib::make": ["lib::make(int n) -> Tensor"]}
    ops = {name: 1 for name in schemas} | {"lib::unknown": 1}
    assert compute_ops(ops, category="elementwise", profiler=True, schemas=schemas) == [
        "lib::fill", "lib::make", "lib::unknown"]
    assert compute_ops(ops, category="elementwise", profiler=True) == list(ops)  # unknown here: compute


def test_an_op_outside_aten_is_excused_only_where_every_call_ran_a_triton_launch_beneath_it():
    """The candidate's custom_op / triton_op wraps its kernels (the recorder runs its function and records what it
    dispatches); a native op outside aten cannot open a launch range beneath itself."""
    from kernelgenbench.sandbox.protocol import LAUNCH_PART

    schemas = {"mine::mul": ["mine::mul(Tensor x, Tensor y) -> Tensor"]}
    wrapped = {"mine::mul": [["aten::empty_like", LAUNCH_PART]]}
    assert compute_ops({"mine::mul": 1}, category="elementwise", profiler=True, parts=wrapped, schemas=schemas) == []
    once = {"mine::mul": [["aten::empty_like", LAUNCH_PART], ["aten::empty_like"]]}  # one call launched nothing
    assert compute_ops({"mine::mul": 2}, category="elementwise", profiler=True, parts=once, schemas=schemas) \
        == ["mine::mul"]
    assert compute_ops({"aten::mul.Tensor": 1}, category="elementwise", profiler=True,
                       parts={"aten::mul.Tensor": [[LAUNCH_PART]]}) == ["aten::mul.Tensor"]


def test_inside_a_launch_only_the_interpreters_own_aliases_and_copies_back_are_excused():
    """Red team 25 ran a fill_ inside an interpreted launch (from a print hook): no task category excuses it there."""
    aliases = {"aten::new_empty": 2, "aten::set_.source_Storage_storage_offset": 2, "aten::copy_": 2}
    assert compute_ops(aliases, category="reduction", in_launch=True) == []
    assert compute_ops({**aliases, "aten::fill_.Scalar": 1}, category="reduction", in_launch=True) \
        == ["aten::fill_.Scalar"]
    assert compute_ops({**aliases, "aten::_local_scalar_dense": 1}, category="reduction", in_launch=True) \
        == ["aten::_local_scalar_dense"]
    assert compute_ops({**aliases, "aten::copy_": 3}, category="elementwise", in_launch=True) \
        == ["3 copy_ inside Triton launches, more than the interpreter's 2 argument copies"]
    assert compute_ops({"aten::fill_.Scalar": 1}, category="reduction") == []  # outside a launch: a workspace's fill


def test_ops_a_launchs_host_code_runs_are_the_calls_not_the_launchs():
    """FP hunt 8: a pre-run hook's zero_ and a grid callable's .item() run inside the launch range, as host code
    the dispatch recorder counts as the call's; the profiler now agrees (the host-code range inside it)."""
    from torch._C._profiler import _RecordFunctionFast

    from kernelgenbench.sandbox.activity import Session
    from kernelgenbench.sandbox.protocol import HOST_CODE

    x = torch.zeros(8)
    with Session("cpu", "kgb_test_launch") as s:
        with _RecordFunctionFast("kgb_test_launch"):
            with _RecordFunctionFast("kgb_test_launch" + HOST_CODE):
                x.zero_()
            x.fill_(1.0)
    rep = s.report(())
    assert rep["available"], rep
    assert any(k.startswith("aten::zero_") for k in rep["cpu_ops"])
    assert not any(k.startswith("aten::zero_") for k in rep["cpu_ops_in_launch"])
    assert any(k.startswith("aten::fill_") for k in rep["cpu_ops_in_launch"])


def test_the_conversion_torch_tensor_runs_before_its_lift_is_left_out_up_to_the_recorders_count():
    # torch.tensor(v, dtype=torch.float64, device="cuda") converts on the host below the Python key (aten::to
    # with _to_copy beneath, then aten::lift_fresh): FlagGems' full read as torch_fallback on an H100. On the CPU
    # its aten::to has nothing beneath; a conversion of the candidate's own data just before still counts.
    from kernelgenbench.sandbox.activity import Session, _lift_conversions

    x = torch.randn(16)
    with Session("cpu", "kgb_test_launch") as s:
        with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Python)):
            x.to(torch.float64)
        torch.tensor(1.5)
    ops = [s.report((), lifted=n)["cpu_ops"] for n in (0, 1)]
    assert ops[0]["aten::to.device"] == 1 and "aten::to.device" not in ops[1]
    assert ops[0]["aten::_to_copy"] == ops[1]["aten::_to_copy"] == 1 and ops[1]["aten::lift_fresh"] == 1
    # as on a GPU: the conversion's parts go with it, at most `limit` conversions, only the one right before
    cuda_like = [("aten::to.device", 1, 0, 10), ("aten::_to_copy", 1, 1, 9), ("aten::copy_", 1, 2, 8),
                 ("aten::lift_fresh", 1, 11, 12), ("aten::to.dtype", 1, 13, 20), ("aten::add.Tensor", 1, 21, 22)]
    assert _lift_conversions(cuda_like, 1) == {0, 1, 2} and _lift_conversions(cuda_like, 0) == set()
    hidden_first = [("aten::to.dtype", 1, 0, 5), ("aten::to.device", 1, 6, 8), ("aten::lift_fresh", 1, 9, 10)]
    assert _lift_conversions(hidden_first, 5) == {1}
    other_thread = [("aten::to.dtype", 2, 0, 5), ("aten::lift_fresh", 1, 9, 10)]
    assert _lift_conversions(other_thread, 5) == set()
