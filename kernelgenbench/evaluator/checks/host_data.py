"""Host compute on any device: the answer wrapped in a tensor from host values during the call.

An answer computed on the host (numpy operators on a tensor's `__array__`, a Python loop over `.tolist()`,
Python's `random`) has to come back as a tensor before a kernel can copy it into the output, and every way
to make a tensor from a list or an array (`torch.tensor`, `as_tensor`, `from_numpy`, `new_tensor`)
dispatches `aten::lift_fresh`, which the dispatch recorder sizes. Real kernel wrappers build only scalars
and small tables this way (FlagGems: pointer arrays of a grouped GEMM, a shape vector), so host data as
large as the largest output is the answer itself. Outputs under `FLOOR_ELEMS` elements are not judged, and
outputs under `SMALL_OUTPUT` elements (as large as a shape, stride or offset table) are judged by value: the
evaluator looks for their elements in the host-made data the worker reports (evaluator/host_values.py). Packed into a wider dtype
(complex pairs, int64 words) the answer has fewer elements but as many bytes: judged by bytes too, for
outputs of `SMALL_OUTPUT` elements or more.

The other way back is a few elements at a time: host values written into a tensor of a few elements per op
(`out[i] = v`, `.fill_(v)` or `torch.full((), v, out=...)` on a view, two floats packed in an int64 view, a run
of equal values), which the dispatch recorder counts from each op's schema (the arguments it writes), inside
launches too; or read out one per op (`.item()`: aten::_local_scalar_dense). Real wrappers do either a few
times per call (a zero-init, a size read); a call that does it for a sixteenth of the output's elements or
more moves the answer through the host. The third way in is the launch itself: host values passed as kernel
arguments (a float per launch, a constexpr tuple of them); distinct floats for a quarter of the output's
elements are the answer. And a storage made from
host values (`torch.UntypedStorage(list)`) dispatches nothing until a tensor is pointed at it with
`Tensor.set_(storage)`, which real wrappers never do.

This is the CPU path's evidence for host compute that dispatches no compute op; it does not see results
written through a numpy view of the output, which the static checks refuse by spelling.
"""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.checks.host_compute import CHECK as HOST_COMPUTE
from kernelgenbench.evaluator.host_values import SMALL_OUTPUT, kept_bytes
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import SMALL_WRITE, CallReport

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
    """Host-made tensor data, and element-by-element writes and reads, against the largest output's."""
    largest = largest_output(task, report)
    if largest < FLOOR_ELEMS:
        return None
    return _wrapped(task, report, largest) or _one_by_one(report, largest)


def _wrapped(task: Task, report: CallReport, largest: int) -> str | None:
    """The answer made into a tensor whole: from a list or an array, or a storage pointed at."""
    if largest < SMALL_OUTPUT:  # as small as a shape or offset table: judged by the values found in it
        if report.host_matched >= max(FLOOR_ELEMS // 2, largest // 2):
            return (f"{report.host_matched} elements of a small output ({largest}) hold values made from host data "
                    f"during the call (torch.tensor of a list, ...): computed on the host")
        if report.host_built >= largest and report.host_built_bytes > kept_bytes(report.host_made):
            return (f"{report.host_built_bytes} bytes of tensor data were made from host values during the call, more "
                    f"than can be looked into, for an output of {largest} elements: computed on the host")
    elif report.host_built >= largest:
        return (f"{report.host_built} elements of tensor data were made from host values (a list or a numpy array: "
                f"torch.tensor, as_tensor, from_numpy) during the call, the largest output has {largest}: "
                f"computed on the host")
    nbytes = largest_output(task, report, 1)
    if largest >= SMALL_OUTPUT and report.host_built_bytes >= nbytes:
        return (f"{report.host_built_bytes} bytes of tensor data were made from host values during the call (in "
                f"{report.host_built} elements of a wider dtype), the largest output has {nbytes}: computed on the host")
    if report.launch_floats >= max(FLOOR_ELEMS, largest // LAUNCH_FLOAT_SHARE):
        return (f"{report.launch_floats} distinct floating-point values were passed as Triton kernel arguments "
                f"during the call (scalars or constexpr tuples), the largest output has {largest}: computed on the host")
    repointed = sorted(op for op in report.ops if op.startswith(_SET_STORAGE))
    if repointed:
        return (f"{repointed[0]} during the call: a tensor pointed at a raw storage (one built from host values, "
                f"torch.UntypedStorage(list), is no tensor op): computed on the host")
    return None


def _one_by_one(report: CallReport, largest: int) -> str | None:
    """The answer written back, or the inputs read out, a few elements per op."""
    reads = sum(n for op, n in report.ops.items() if op.split(".")[0] in _ELEMENT_READS)
    if report.small_writes >= max(FLOOR_ELEMS, largest // ONE_BY_ONE_SHARE):
        return (f"{report.small_writes} writes into tensors of at most {SMALL_WRITE} elements during the call (fill_, "
                f"copy_, full(out=) on a view of a few elements), the largest output has {largest}: the answer moved "
                f"through the host a few elements at a time")
    if reads >= max(2 * FLOOR_ELEMS, largest // ONE_BY_ONE_SHARE):
        return (f"{reads} .item() reads during the call, the largest output has {largest} elements: the data moved "
                f"through the host one element at a time")
    return None


CHECK = Check(
    name="host_data", status=Status.HOST_COMPUTE, collector="dispatch", judge=judge,
    prompt=HOST_COMPUTE.prompt,
    corpus=("host_numpy_scalar_ctor", "host_list_in_dict", "host_python_random", "item_loop", "host_fill_elementwise",
            "host_small_output", "host_complex_pack", "host_tensor_in_launch", "host_untyped_storage",
            "forge_launch_by_closure", "host_full_out_writeback", "host_int64_pack", "host_bernoulli_runs",
            "host_launch_arguments", "host_fill_in_launch", "host_constexpr_answer"),
)
