"""The registry of checks on what a candidate did during its call (not on its outputs' values).

Each check is one module in this package exporting `CHECK`: its name, the status it gives, the sandbox
collector whose evidence it reads, its judge (pure: the task and the worker's report in, the first piece
of evidence out, or None), its line in the prompt's "forbidden" list and the corpus files that must
trigger it. `REGISTRY` holds them in the order they are judged; the first that fires decides the verdict.
"""

from __future__ import annotations

from kernelgenbench.evaluator.checks.base import Check, judge_report
from kernelgenbench.evaluator.checks.device_recorder import CHECK as DEVICE_RECORDER
from kernelgenbench.evaluator.checks.drawn_before import CHECK as DRAWN_BEFORE
from kernelgenbench.evaluator.checks.exception import CHECK as EXCEPTION
from kernelgenbench.evaluator.checks.host_compute import CHECK as HOST_COMPUTE
from kernelgenbench.evaluator.checks.host_data import CHECK as HOST_DATA
from kernelgenbench.evaluator.checks.kernel_rules import CHECK as KERNEL_RULES
from kernelgenbench.evaluator.checks.launch_memory import CHECK as LAUNCH_MEMORY
from kernelgenbench.evaluator.checks.launch_ops import CHECK as LAUNCH_OPS
from kernelgenbench.evaluator.checks.launch_writes import CHECK as LAUNCH_WRITES
from kernelgenbench.evaluator.checks.no_launch import CHECK as NO_LAUNCH
from kernelgenbench.evaluator.checks.packing import CHECK as PACKING
from kernelgenbench.evaluator.checks.profiled_ops import CHECK as PROFILED_OPS
from kernelgenbench.evaluator.checks.side_stream import CHECK as SIDE_STREAM
from kernelgenbench.evaluator.checks.tampering import CHECK as TAMPERING
from kernelgenbench.evaluator.checks.threads import CHECK as THREADS
from kernelgenbench.evaluator.checks.torch_fallback import CHECK as TORCH_FALLBACK

# Tampering first (the evidence itself is in doubt), then what was raised, then where the work was done; a
# thread is judged after the compute checks, which name what it computed when it did (raw_thread); so is a kernel
# no GPU compiles (kernel_rules: torch compute in a plain function it calls is named as torch compute), tensor
# memory written inside a launch by neither its kernels nor recorded host code (launch_writes: the launch watch
# names the function that did it first, where it saw one) and one that reached memory outside its tensors
# (launch_memory).
REGISTRY: tuple[Check, ...] = (TAMPERING, SIDE_STREAM, DEVICE_RECORDER, PACKING, EXCEPTION, HOST_COMPUTE,
                               HOST_DATA, DRAWN_BEFORE, TORCH_FALLBACK, PROFILED_OPS, LAUNCH_OPS, KERNEL_RULES, LAUNCH_WRITES,
                               LAUNCH_MEMORY,
                               THREADS, NO_LAUNCH)

__all__ = ["REGISTRY", "Check", "judge_report"]
