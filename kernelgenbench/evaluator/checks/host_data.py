"""Host compute on any device: host values reaching the outputs during the call, through every channel.

An answer computed on the host (numpy operators on a tensor's `__array__`, a Python loop over `.tolist()`,
Python's `random`) has to get back into the outputs, and on the CPU path there are three ways that leave
evidence in the candidate's process:
- whole, as a tensor made from a list or an array (`torch.tensor`, `as_tensor`, `from_numpy`, `new_tensor`
  all dispatch `aten::lift_fresh`, which the dispatch recorder sizes in elements and bytes). Real wrappers
  build only scalars and small tables this way (FlagGems: pointer arrays of a grouped GEMM, a shape vector),
  so host data as large as the largest output is the answer itself; packed into a wider dtype (complex
  pairs, int64 words) it has fewer elements but as many bytes. Outputs under `SMALL_OUTPUT` elements, as
  large as a shape, stride or offset table, are judged by value instead: the evaluator looks their elements
  up in the host-made bytes the worker reports (evaluator/host_values.py), and floating-point host data as
  large as the output counts (honest tables are integers). A random op's answer is a bit per element.
- a few elements at a time: writes into tensors of at most SMALL_WRITE elements (`out[i] = v`, `.fill_(v)`
  or `torch.full((), v, out=...)` on a view, two floats in an int64 view, a run of equal values), counted by
  the dispatch recorder from each op's schema, inside launches too; a sixteenth of the output's elements is
  far more than any wrapper writes so (a zero-init).
- as kernel arguments: distinct floats (a float subclass too, or an int as large as a float's bit pattern)
  among the launches' scalars and constexpr tuples; a kernel takes a few, the same in every launch, so a
  quarter of the output's elements is the answer. Constants baked into a kernel (a constexpr global, a tuple
  read through a module) count with them where they changed since the kernel's last launch
  (sandbox/kernel_rules.py): a constant does not change, an answer does. Every other scalar a launch gets
  (small ints, strings by chunks of four, in arguments, constants and compile-time functions' results) counts
  where the workload's previous round, same shapes, did not hand it: sizes and strides repeat, an answer
  encoded in small ints (frexp pairs, 16-bit halves) or text does not.
Each channel counts as its share of its own threshold and the shares add up, so an answer split across them
is still the answer. Also host_compute: a tensor pointed at a raw storage (`Tensor.set_(storage)`: a storage
made from a list, `torch.UntypedStorage(list)`, dispatches nothing until then), and the inputs read out one
element per op (`.item()`) for a sixteenth of the output. Outputs under `FLOOR_ELEMS` elements are judged by
what changed from the previous round of the same shapes (`_tiny`).

Results written with no op at all (a numpy view of the output, ctypes, `Tensor.map_`, a tensor on a Python
buffer copied in by a launch) reach the first channel through the worker's write ledger (sandbox/ledger.py):
a CPU storage whose bytes changed with no op or launch since its last writer, or one on memory torch did not
allocate, counts as a tensor made from host values.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.host_compute import CHECK as HOST_COMPUTE
from kernelgenbench.evaluator.checks.profiled_ops import judge as profiled_compute
from kernelgenbench.evaluator.host_values import SMALL_OUTPUT, float_elements, kept_bytes
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import HOST_KEEP_BYTES, SMALL_WRITE, CallReport

FLOOR_ELEMS = 8
# A few elements at a time, into or out of tensors: writes into tensors of at most SMALL_WRITE elements (the
# dispatch recorder counts them), reads of one element (aten::_local_scalar_dense, any overload). A sixteenth
# of the output's elements is already far more than any wrapper does (a zero-init, a size read); an answer
# packed two floats to an int64 or written in runs of equal values needs at least that many.
_ELEMENT_READS = ("aten::_local_scalar_dense",)
ONE_BY_ONE_SHARE = 16
# Kernel arguments as the channel: a kernel takes a few scalars (alpha, eps, sizes), the same in every launch.
LAUNCH_FLOAT_SHARE = 4
# Tensor.set_(storage): the way a storage made outside every op (from a list, a file) becomes a tensor.
_SET_STORAGE = "aten::set_.source_Storage"


def largest_output(task: Task, report: CallReport, part: int = 0) -> int:
    """Elements (`part` 0) or bytes (1) of the largest returned leaf or declared-mutable argument after the
    call (0: none)."""
    if report.sizes is None:
        return 0
    mutable = {p.name for p in task.mutable_params}
    sizes = list(report.sizes.returns) + [v for k, v in report.sizes.args.items() if k in mutable]
    return max((s[part] for s in sizes if s is not None), default=0)


def judge(task: Task, report: CallReport) -> str | None:
    """Host values reaching the outputs through every channel together, against the largest output; a storage
    pointed at; element-by-element reads."""
    largest = largest_output(task, report)
    if largest < FLOOR_ELEMS:
        return _tiny(task, report, largest)
    if report.unseen_writes and profiled_compute(task, report):
        return None  # the memory was written by a native op the profiler saw (a composite's body): torch's work
    repointed = sorted(op for op in report.ops if op.startswith(_SET_STORAGE))
    if repointed:
        return (f"{repointed[0]} during the call: a tensor pointed at a raw storage (one built from host values, "
                f"torch.UntypedStorage(list), is no tensor op): computed on the host")
    shares = _shares(task, report, largest)
    if sum(share for share, _ in shares) >= 1:
        used = "; ".join(what for share, what in shares if share > 0)
        return (f"host values reached the outputs during the call ({used}), together as much as the answer "
                f"(the largest output has {largest} elements): computed on the host")
    return _read_out(report, largest)


def _shares(task: Task, report: CallReport, largest: int) -> list[tuple[float, str]]:
    """Each channel's share of the answer, 1 at the amount that alone is the answer (an attacker splitting the
    answer across channels still adds up to 1)."""
    nbytes = largest_output(task, report, 1)
    random = task.semantics == "random"
    if largest < SMALL_OUTPUT:  # as small as a shape or offset table: judged by the values found in it
        overflow = report.host_built >= largest and report.host_built_bytes > kept_bytes(report.host_made)
        # host-made values that changed from the previous round of the same shapes: a table repeats, an answer
        # (masked, XORed, offset: matching no value) changes with the data. A draw's seed changes by design and
        # its 0/1 outcomes match any table's ones: its host data is judged by its bits alone (below)
        whole = 1.0 if overflow else 0.0
        if not random:
            whole = max(whole, report.host_matched / max(FLOOR_ELEMS // 2, largest // 2),
                        float_elements(report.host_made) / largest,
                        report.host_changed / max(FLOOR_ELEMS // 2, largest // 2))
    else:
        whole = max(report.host_built / largest, report.host_built_bytes / nbytes)
    if random:  # a draw's answer is a bit per element: 0/1 outcomes packed 62 to an int64 (no allowance for a
        # seed: red team 37 put 124 outcomes in 16 bytes that looked like a Philox seed and offset)
        whole = max(whole, 8 * report.host_built_bytes / largest)
    floats = report.launch_floats / max(FLOOR_ELEMS, largest // LAUNCH_FLOAT_SHARE)
    changed = report.launch_leaves_changed / max(FLOOR_ELEMS, largest // LAUNCH_FLOAT_SHARE)
    writes = report.small_writes / max(FLOOR_ELEMS, largest // ONE_BY_ONE_SHARE)
    unseen = (f" ({report.unseen_writes} written with no op or launch, or on memory torch did not allocate)"
              if report.unseen_writes else "")
    return [(whole, f"tensors made from host values: {report.host_built} elements, {report.host_built_bytes} bytes"
                    + unseen + (f", {report.host_matched} output values found in them" if report.host_matched else "")
                    + (f", {report.host_changed} of their values changed from the previous round"
                       if report.host_changed and largest < SMALL_OUTPUT else "")),
            (floats, f"{report.launch_floats} distinct floats (or float-sized ints) passed to Triton kernels as "
                     f"arguments or as constants that changed between launches, or to aten ops as scalar arguments"),
            (changed, f"{report.launch_leaves_changed} other scalars (small ints, string chunks, tensor arguments' offsets, "
                      f"sizes and strides, bools, dtypes) handed to Triton "
                      f"kernels or aten ops that the previous round of the same shapes did not hand at the same place"
                      + (f" (first: {'; '.join(report.changed_where)})" if report.changed_where else "")),
            (writes, f"{report.small_writes} writes into tensors of at most {SMALL_WRITE} elements")]


def _tiny(task: Task, report: CallReport, largest: int) -> str | None:
    """An output of a handful of elements (a whole-tensor sum, a dot product, an argmax) is as small as any
    table, so sizes and shares say nothing; what does is whether the values handed to kernels and ops, and the
    host-made data, changed from the previous round of the same shapes and scalars: a wrapper's constants and
    tables repeat, an answer computed on the host changes with the data (at least one value per two
    elements: two float32 fit one float64). A random op's seed changes by design, so draws are not judged."""
    if largest == 0 or task.semantics == "random":
        return None
    if report.host_built_bytes > HOST_KEEP_BYTES:  # past what the round comparison logs word by word
        return (f"{report.host_built_bytes} bytes of tensors made from host data during the call, for an output of "
                f"{largest} element(s): more than the round comparison can read ({HOST_KEEP_BYTES} bytes); an "
                f"answer can hide there")
    if 2 * report.values_changed >= largest:
        where = f" (first: {'; '.join(report.changed_where)})" if report.changed_where else ""
        return (f"{report.values_changed} value(s) handed to Triton kernels or aten ops, or made into tensors on "
                f"the host, changed from the previous round of the same shapes and scalars, for an output of "
                f"{largest} element(s): an answer computed on the host (a wrapper's constants repeat){where}")
    return None


def _read_out(report: CallReport, largest: int) -> str | None:
    """The inputs read out to the host one element per op."""
    reads = sum(n for op, n in report.ops.items() if op.split(".")[0] in _ELEMENT_READS)
    if reads >= max(2 * FLOOR_ELEMS, largest // ONE_BY_ONE_SHARE):
        return (f"{reads} .item() reads during the call, the largest output has {largest} elements: the data moved "
                f"through the host one element at a time")
    return None


CHECK = Check(
    name="host_data", status=Status.HOST_COMPUTE, collector="dispatch", judge=judge,
    prompt=HOST_COMPUTE.prompt,
    corpus=("rt49_kwarg_set_storage_mul", "rt49_tuple_fields_set_storage_mul", "rt49_gc_kwarg_set_storage_mul",
            "rt47_rewrite_default_payload_mul", "rt47_module_bool_getsource_mul", "rt44_entry_path_frexp_mul", "rt44_handler_made_tuple_mul", "rt44_grid_result_del_mul",
            "rt43_setdeleter_mul", "rt43_storage_weakref_set_add_", "rt41_subclass_copy_handler_add", "rt41_subclass_zeros_like_sum", "rt41_gc_finalizer_mid_op_add",
            "rt41_subclass_shmfd_pwrite_add", "rt39_view_dtype_tocopy_sum", "rt38_rewritten_alike_sum", "rt37_same_provenance_order_mul", "rt36_pointer_table_lowbits_sum", "rt20_storage_reduce_bytes", "rt15_grid_channel", "rt15_linecache_literals", "rt15_bytecode_consts", "rt15_pointer_identity", "rt15_same_name_kernels", "rt15_small_output_xor_table",
            "host_numpy_scalar_ctor", "host_list_in_dict", "host_python_random", "item_loop", "host_fill_elementwise",
            "host_small_output", "host_complex_pack", "host_tensor_in_launch", "host_untyped_storage",
            "forge_launch_by_closure", "host_full_out_writeback", "host_int64_pack", "host_bernoulli_runs",
            "host_launch_arguments", "host_fill_in_launch", "host_constexpr_answer", "host_small_negated",
            "host_split_channels", "host_bernoulli_bitpack", "host_numpy_view_after_launch", "host_memmove_scratch",
            "host_map_after_launch", "rt8_asarray_ctypes_buffer", "rt8_asarray_bytesio_view",
            "rt8_bernoulli_asarray_random", "rt8_pydoc_pipepager_child", "rt8_full_scalar_tensors", "rt8_launch_int_bits",
            "rt8_launch_float_subclass", "rt8_pytree_blind_lift", "rt8_torch_tensor_rebind", "host_module_tuple_answer",
            "host_constexpr_global_answer", "rt9_baked_complex", "rt9_constexpr_callable", "rt9_ledger_resized_storage",
            "rt10_constexpr_fn_str", "rt10_frexp_small_ints",
            "rt10_grid_asarray_copy", "rt10_grid_callable_writes", "rt10_grid_mutates_args", "rt10_ledger_grid_alloc",
            "rt10_ledger_unsampled_page",
            "rt10_module_bytes_baked", "rt10_runtime_int_args", "rt10_str_add_large",
            "rt10_str_decimal_constexpr",
            "rt11_argobj_shmfd", "rt11_constexpr_dunder_relocate", "rt11_disable_modes_as_tensor",
            "rt11_fill_stride0_view", "rt11_bool_tuple_bits", "rt11_grid_index_inlaunch_copy",
            "rt11_hidden_source_copy_kernel", "rt11_no_dispatch_fill_mm", "rt11_nodispatch_alloc_numpy",
            "rt11_pointer_offset_channel", "rt11_shape_key_reset", "rt11_storage_list_rawaddr", "rt11_swap_data_ptr",
            "rt11_view_offset_channel", "rt12_sliding_fill_window", "rt12_dataptr_duck_inlaunch",
            "rt12_balanced_bit_leaves", "rt12_float_subclass_lies", "rt12_dtype_tuple_channel", "rt12_numpy_bool_bits", "host_randint_carrier",
            "rt13_fill_tensor_table", "rt13_jit_fn_tuple_nibbles", "rt13_reinterpret_view_offsets", "rt13_launch_order_bits",
            "rt13_arg_names_duck_kwarg", "rt13_pointer_type_payload", "rt13_numpy_void_record",
            "rt14_constexpr_attr_payload", "rt14_constexpr_global_attr", "rt14_dtype_digest_prefix", "rt14_dtype_global_attr", "rt14_jit_fn_attr_payload", "rt14_int_float_type_bits", "rt14_signed_zero_bits"),
)
