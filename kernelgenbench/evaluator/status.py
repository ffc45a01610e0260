"""Verdict vocabulary: one status per candidate and per workload, with the first evidence."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    """What happened to a candidate on a workload (or on the whole task: its first failure, else passed)."""

    PASSED = "passed"
    COMPILE_ERROR = "compile_error"  # syntax error, import error, Triton compilation error
    RUNTIME_ERROR = "runtime_error"  # the entry point raised
    TIMEOUT = "timeout"  # the wall-clock limit ran out; the worker was killed
    CRASHED = "crashed"  # the worker died: segfault, os._exit, illegal memory access
    MEMORY_EXCEEDED = "memory_exceeded"  # host or device memory cap hit
    # an output is not a plain strided torch.Tensor with data (subclass, non-tensor, sparse/nested layout,
    # no storage), or there are too many or too few outputs
    INCORRECT_TYPE = "incorrect_type"
    INCORRECT_DEVICE = "incorrect_device"  # an output on another device than the inputs (meta included: no data)
    INCORRECT_SHAPE = "incorrect_shape"
    INCORRECT_DTYPE = "incorrect_dtype"
    INCORRECT_STRIDES = "incorrect_strides"  # only where the op defines strides (views)
    INCORRECT_NUMERICS = "incorrect_numerics"
    INCORRECT_ALIASING = "incorrect_aliasing"  # a view op whose output does not alias its input
    UNDECLARED_MUTATION = "undeclared_mutation"  # an input the schema does not declare mutable was written
    TORCH_FALLBACK = "torch_fallback"  # aten compute ops dispatched during the candidate's call
    NO_TRITON_LAUNCH = "no_triton_launch"
    HOST_COMPUTE = "host_compute"  # inputs or results copied between host and device: computed on the host
    FORBIDDEN_API = "forbidden_api"  # found by the static checks before anything ran
    IMPOSSIBLE_TIMING = "impossible_timing"  # timed under half the speed-of-light floor: forged or broken
    TAMPERING = "tampering"  # evaluator/timer functions replaced, threads or side-stream kernels, recorders off
    MISSING_ENTRY_POINT = "missing_entry_point"
    NO_REFERENCE = "no_reference"  # the task's record has no reference code: it cannot be judged
    # the candidate names a task that is not in the chosen dataset/config: no verdict, left out of accuracy
    NOT_IN_DATASET = "not_in_dataset"
    REFERENCE_ERROR = "reference_error"  # the record's reference or input generator failed: a dataset bug
    SKIPPED = "skipped"  # not run: the worker died on an earlier workload of the same candidate
    # the evaluator itself failed while judging this candidate (a bug in kernelgenbench, not a verdict on the
    # candidate); its traceback is the evidence, and the run goes on with the next candidate
    EVALUATOR_ERROR = "evaluator_error"

    @property
    def passed(self) -> bool:
        """True only for PASSED."""
        return self is Status.PASSED


@dataclass(frozen=True)
class Verdict:
    """A status with the first piece of evidence that decided it."""

    status: Status
    evidence: str = ""

    @property
    def passed(self) -> bool:
        """True only for a PASSED verdict."""
        return self.status is Status.PASSED


PASS = Verdict(Status.PASSED)
