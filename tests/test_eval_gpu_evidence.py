"""On an accelerator: launch evidence whatever path launched, side streams judged by where kernels ran,
host copies as evidence of host compute, device kernels attributed to Triton or a library."""

from __future__ import annotations

import json

import pytest
import torch
from eval_helpers import EXAMPLE_TASKS, corpus, example_rows, write_jsonl
from evidence_helpers import ADD_KERNEL, example_task, serve

import kernelgenbench
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import Threads

pytestmark = pytest.mark.gpu

N = 1 << 16
FULL = {"self": torch.randn(N), "other": torch.randn(N), "alpha": 1}
EMPTY = {"self": torch.empty(0), "other": torch.empty(0), "alpha": 1}

# FlagGems' LibEntry in small: the first call compiles and launches through JITFunction.run, later calls
# launch the cached CompiledKernel directly (`compiled[grid](*args)`), never through JITFunction.run.
LIBENTRY = ADD_KERNEL + '''

class _Entry:
    def __init__(self, fn):
        self.fn = fn
        self.cache = {}

    def __call__(self, grid, x, y, out, n, BLOCK):
        key = (x.dtype, n, BLOCK)
        if key not in self.cache:
            self.cache[key] = self.fn.run(x, y, out, n, BLOCK=BLOCK, grid=grid, warmup=False)
            return
        major, minor = (int(p) for p in triton.__version__.split(".")[:2])
        args = (x, y, out, n, BLOCK) if (major, minor) <= (3, 6) else (x, y, out, n)  # as LibEntry does
        self.cache[key][grid](*args)


_entry = _Entry(_add_kernel)


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    _entry((triton.cdiv(out.numel(), 1024), 1, 1), self, other, out, out.numel(), 1024)
    return out
'''

UNUSED_STREAMS = ADD_KERNEL + '''

def add_Tensor(self, other, *, alpha=1):
    streams = [torch.cuda.Stream() for _ in range(4)]  # made, queried, never used
    torch.cuda.current_stream(), torch.cuda.default_stream(), streams[0].query()
    out = torch.empty_like(self)
    _launch(self, other, out)
    return out
'''

HOST_NUMPY = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _token(ptr):
    tl.store(ptr, 1.0)


def add_Tensor(self, other, *, alpha=1):
    result = self.cpu().numpy() + other.cpu().numpy()
    _token[(1,)](torch.empty(1, device=self.device))
    return torch.from_numpy(result).to(self.device)
'''

SKIPS_EMPTY = ADD_KERNEL + '''

def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    if out.numel():
        _launch(self, other, out)
    return out
'''


def test_launches_through_a_cached_compiled_kernel_are_counted(tmp_path):
    ready, calls = serve(tmp_path, LIBENTRY, [FULL] * 3, device="cuda:0")
    assert ready.kind == "ready" and not ready.message.tampering, ready.message
    assert [v.status for _, v in calls] == [Status.PASSED] * 3, [v.evidence for _, v in calls]
    assert [r.report.launches for r, _ in calls] == [{"_add_kernel": 1}] * 3
    for reply, _ in calls:
        profile = reply.report.profile
        assert profile.available and profile.expected and profile.call_stream is not None, profile
        assert [(k.name, k.origin, k.stream) for k in profile.kernels] == [
            ("_add_kernel", "triton", profile.call_stream)], profile
    assert calls[0][0].report.compile_s > 0


def test_correct_kernel_passes_on_full_and_empty_workloads(tmp_path):
    _, calls = serve(tmp_path, SKIPS_EMPTY, [FULL, EMPTY, FULL], device="cuda:0")
    assert [v.status for _, v in calls] == [Status.PASSED] * 3, [v.evidence for _, v in calls]
    assert all(r.report.threads == Threads(at_start=(), at_end=(), started=()) for r, _ in calls), [
        r.report.threads for r, _ in calls]


def test_kernel_on_a_side_stream_is_tampering(tmp_path):
    code = next(e.code for e in corpus() if e.name == "side_stream")
    _, calls = serve(tmp_path, code, [FULL], device="cuda:0")
    (_, verdict), = calls
    assert verdict.status is Status.TAMPERING and "_add_kernel (stream" in verdict.evidence, verdict


def test_stream_objects_made_but_unused_pass(tmp_path):
    _, calls = serve(tmp_path, UNUSED_STREAMS, [FULL, FULL], device="cuda:0")
    assert [v.status for _, v in calls] == [Status.PASSED] * 2, [v.evidence for _, v in calls]


def test_input_copied_to_the_host_and_computed_there_is_host_compute(tmp_path):
    _, calls = serve(tmp_path, HOST_NUMPY, [FULL], device="cuda:0")
    (reply, verdict), = calls
    assert verdict.status is Status.HOST_COMPUTE, (verdict, reply.report.profile)
    kinds = {c.kind for c in reply.report.profile.memcpy}
    assert {"DtoH", "HtoD"} <= kinds


def test_library_kernel_is_attributed_to_its_library(tmp_path):
    code = "import torch\n\ndef mm(self, mat2):\n    return torch.mm(self, mat2)\n"
    args = {"self": torch.randn(256, 256), "mat2": torch.randn(256, 256)}
    _, calls = serve(tmp_path, code, [args], device="cuda:0", task=example_task("aten/mm"))
    (reply, verdict), = calls
    kernels = reply.report.profile.kernels
    assert kernels and all(k.origin == "library" for k in kernels), kernels
    assert any(k.library in ("cublas", "cutlass") for k in kernels), kernels
    assert verdict.status in (Status.TORCH_FALLBACK, Status.NO_TRITON_LAUNCH)
    assert "aten::mm" in reply.report.profile.cpu_ops


def test_workload_rows_name_the_kernels_that_ran(tmp_path):
    rows = [r for r in example_rows() if r["candidate_id"] == "example:aten__add.Tensor"]
    out = tmp_path / "r.jsonl"
    results = kernelgenbench.evaluate(write_jsonl(tmp_path / "s.jsonl", rows), dataset=EXAMPLE_TASKS, device="auto",
                                      out=out, timing={"reps": 5, "warmup": 1})
    assert [r.status for r in results] == [Status.PASSED]
    workloads = [json.loads(line) for line in out.read_text().splitlines() if json.loads(line)["kind"] == "workload"]
    assert workloads and any(k["origin"] == "triton" for w in workloads for k in w["kernels"] or []), workloads


def test_a_compiled_kernels_launcher_called_directly_has_its_arguments_logged():
    """FlagGems' LibEntry calls a cached kernel's launcher itself after a key's first call: no JIT entry logs
    that launch's scalars, the launcher's wrapper does (a host-made number handed that way is seen)."""
    import triton
    import triton.language as tl
    from triton import knobs

    from kernelgenbench.sandbox.launches import LaunchCounter

    @triton.jit
    def _fill(out_ptr, value, N: tl.constexpr):
        tl.store(out_ptr + tl.arange(0, N), tl.full((N,), value, tl.float32))

    out = torch.empty(4, device="cuda")
    compiled = _fill[(1,)](out, 1.0, N=4)
    major, minor = (int(p) for p in triton.__version__.split(".")[:2])
    args = (out, 3.5, 4) if (major, minor) <= (3, 6) else (out, 3.5)
    counter = LaunchCounter()
    with counter.active():
        stream = torch.cuda.current_stream().cuda_stream
        compiled.run(1, 1, 1, stream, compiled.function, compiled.packed_metadata,
                     compiled.launch_metadata((1, 1, 1), stream, *args), knobs.runtime.launch_enter_hook,
                     knobs.runtime.launch_exit_hook, *args)
    torch.cuda.synchronize()
    assert out.tolist() == [3.5] * 4
    logged = LaunchCounter()
    logged.note_arguments((3.5,), {})
    assert counter.paths == ["direct"] and logged.floats <= counter.floats, (counter.paths, counter.floats)
