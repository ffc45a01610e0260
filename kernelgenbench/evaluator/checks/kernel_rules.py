"""A kernel no GPU would compile, run under Triton's interpreter: judged as a GPU judges it, a compile error.

Under TRITON_INTERPRET=1 a kernel body is Python, so it can read a global list holding an answer made on the
host, call a plain function that writes the output, or multiply the numpy arrays behind its blocks
(`.handle`). A GPU compile refuses each (triton's rule for what a body may name: constexpr globals, modules,
JIT functions, triton.language members and a few builtins); the worker applies that rule at every launch
(sandbox/kernel_rules.py) and reports the breaks. Judged after the compute checks, so torch compute in a
plain function a kernel calls is still named as such.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def judge(task: Task, report: CallReport) -> str | None:
    """The first break of Triton's rule for kernel bodies, and how many more the call had."""
    breaks = report.kernel_rule_breaks
    if not breaks:
        return None
    more = f" ({len(breaks) - 1} more)" if len(breaks) > 1 else ""
    return f"a kernel no GPU compiles ran in Triton's interpreter: {breaks[0]}{more}"


CHECK = Check(
    name="kernel_rules", status=Status.COMPILE_ERROR, collector="launches", judge=judge,
    prompt=("a kernel body that names what a GPU compile refuses (a global that is not constexpr, a plain Python "
            "function, a block's `.handle`), even where Triton's interpreter runs it"),
    corpus=("rt50_enum_class_data_launch_arg_mul", "rt50_enum_class_data_default_mul",
            "rt48_aggregate_partial_dunder_mul", "rt48_device_fn_default_callable_mul",
            "rt47_global_class_property_mul", "rt47_tuple_init_self_delete_mul", "rt47_pre_run_hooks_tuple_mul",
            "rt47_arg_names_iter_mul", "rt47_tl_probe_getattr_mul", "rt47_module_getattr_pep562_mul",
            "rt47_midlaunch_staged_probe_mul", "rt15_comparison_class_payload", "rt15_interp_builder_payload", "rt15_block_dict_handle", "rt15_builtins_max_swap", "rt15_forged_tl_member", "rt15_triton_globals_kernel",
            "rt8_kernel_global_answer", "rt8_kernel_numpy_handle", "rt9_builtin_marker",
            "rt9_fn_swap", "rt9_getattr_param_name", "rt9_grid_toctou", "rt9_jit_as_argument",
            "rt9_namedtuple_classattr",
            "rt10_constexpr_fn_toctou", "rt10_default_jit_helper", "rt10_linecache_swap", "rt10_default_param_callback", "rt10_getattr_handle_local", "rt10_jit_fn_attr_call",
            "rt11_builtins_vars_kernel", "rt11_getattr_loop_handle",
            "rt11_param_object_method", "rt9_constexpr_dict_keys", "rt10_constexpr_deque_global",
            "rt12_numpy_module_spoof_sum", "rt12_descriptor_name_softmax", "rt13_class_object_carriers",
            "rt14_memo_partial_setstate_mm", "rt14_namedtuple_type_int_payload", "rt14_namedtuple_type_int_method_mm", "rt14_partial_args_reduce_mm", "rt14_singledispatch_registry_mm", "rt14_tuple_subclass_method_mm",
            "forged_generated_code_mm", "rt29_nt_globals_mm", "rt29_stdlib_globals_softmax",
            "rt29_staticmethod_class_mul", "rt29_createfn_nt_add", "rt29_staticclass_nt_add"),
)
