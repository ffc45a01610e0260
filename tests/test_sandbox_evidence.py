"""Evidence of what a candidate really did, on CPU: launches where every path ends, threads by what they do,
one profiler session per call, and the judges that read them."""

from __future__ import annotations

import threading

import pytest
import torch
from evidence_helpers import ADD_KERNEL, call_report, example_task, serve

from kernelgenbench.evaluator.checks import host_compute, no_launch, side_stream
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.activity import Session
from kernelgenbench.sandbox.launches import LaunchCounter, loaded_kernels
from kernelgenbench.sandbox.protocol import Kernel, Leaf, Memcpy, Profile, Sizes

EMPTY = {"self": torch.empty(0), "other": torch.empty(0), "alpha": 1}
FULL = {"self": torch.randn(300), "other": torch.randn(300), "alpha": 1}

SKIPS_EMPTY = ADD_KERNEL + '''

def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    if out.numel():  # nothing to compute: no launch
        _launch(self, other, out)
    return out
'''

THREAD_AT_IMPORT_JOINED = ADD_KERNEL + '''
import threading

_t = threading.Thread(target=lambda: None, name="warm")
_t.start()
_t.join()


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    _launch(self, other, out)
    return out
'''

RAW_THREAD_AT_IMPORT = ADD_KERNEL + '''
import _thread
import time

_thread.start_new_thread(time.sleep, (600,))


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    _launch(self, other, out)
    return out
'''

THREAD_IN_CALL_JOINED = ADD_KERNEL + '''
from concurrent.futures import ThreadPoolExecutor


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(_launch, self, other, out).result()
    return out
'''

RAW_THREAD_IN_CALL = ADD_KERNEL + '''
import _thread
import time


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty_like(self)
    _launch(self, other, out)
    _thread.start_new_thread(time.sleep, (0.0,))
    time.sleep(0.2)  # gone before the call ends: only its start can be seen
    return out
'''


def test_kernel_that_skips_the_launch_on_empty_outputs_passes(tmp_path):
    ready, calls = serve(tmp_path, SKIPS_EMPTY, [EMPTY, FULL, EMPTY])
    assert ready.kind == "ready" and not ready.message.tampering
    assert [v.status for _, v in calls] == [Status.PASSED] * 3
    assert [r.report.launches for r, _ in calls] == [{}, {"_add_kernel": 1}, {}]
    assert calls[0][0].report.sizes.returns == ((0, 0),)


def test_no_launch_on_a_call_with_outputs_fails(tmp_path):
    code = "import torch\n\ndef add_Tensor(self, other, *, alpha=1):\n    return torch.empty_like(self)\n"
    _, calls = serve(tmp_path, code, [EMPTY, FULL])
    assert [v.status for _, v in calls] == [Status.PASSED, Status.NO_TRITON_LAUNCH]


def test_thread_started_and_joined_at_import_passes(tmp_path):
    ready, calls = serve(tmp_path, THREAD_AT_IMPORT_JOINED, [FULL, FULL])
    assert ready.kind == "ready" and not ready.message.tampering
    assert [v.status for _, v in calls] == [Status.PASSED, Status.PASSED], [v.evidence for _, v in calls]


def test_raw_thread_left_running_at_import_is_seen_when_the_call_starts(tmp_path):
    _, calls = serve(tmp_path, RAW_THREAD_AT_IMPORT, [FULL])
    (reply, verdict), = calls
    assert verdict.status is Status.TAMPERING
    assert "alive when the call started that were not there before the import" in verdict.evidence
    assert reply.report.threads.at_start and not reply.report.threads.started


def test_thread_started_in_the_call_fails_even_when_joined(tmp_path):
    _, calls = serve(tmp_path, THREAD_IN_CALL_JOINED, [FULL])
    (reply, verdict), = calls
    assert verdict.status is Status.TAMPERING and "started during the call" in verdict.evidence
    assert reply.report.launches == {"_add_kernel": 1}  # launched from the pool's thread: still counted


def test_raw_thread_started_in_the_call_is_seen(tmp_path):
    _, calls = serve(tmp_path, RAW_THREAD_IN_CALL, [FULL])
    (_, verdict), = calls
    assert verdict.status is Status.TAMPERING and "_thread.start_new_thread(sleep)" in verdict.evidence


def test_thread_corpus_entry_fails_as_tampering(tmp_path):
    from eval_helpers import corpus

    code = next(e.code for e in corpus() if e.name == "thread")
    _, calls = serve(tmp_path, code, [FULL])
    assert calls[0][1].status is Status.TAMPERING and "left running after the call" in calls[0][1].evidence


def test_launch_hook_counts_a_launch_from_any_cache_and_is_removed_after():
    """A compiled kernel's launcher calls triton's launch_enter_hook chain with the kernel's LazyDict, whoever
    called the launcher (LibEntry's `compiled[grid](...)`, JITFunction.run, the autotuner): once a launch, inside
    the driver's launcher. A call of the hook from anywhere else is no launch (red team 44 called it from a grid
    callable), nor is a second one inside the same launcher call."""
    from triton import knobs
    from triton.compiler.compiler import LazyDict

    counter = LaunchCounter()
    meta = LazyDict({"name": "cached_kernel", "function": 0, "stream": 0})
    meta.add(lambda: pytest.fail("the kernel's own launch_metadata must not run"), ())

    def launcher(_self, *args):  # as the driver's launcher: its C code calls the enter hook
        knobs.runtime.launch_enter_hook(meta)
        knobs.runtime.launch_enter_hook(meta)

    with counter.active():
        counter._hook_counts = "launcher"  # as on a GPU, whose driver's launcher class the counter wraps
        launch = counter._wrap_launcher(launcher)
        launch(object())
        launch(object())
        knobs.runtime.launch_enter_hook(meta)  # the candidate's own call
    knobs.runtime.launch_enter_hook(meta)
    assert counter.launches == {"cached_kernel": 2}
    assert "cached_kernel" in loaded_kernels()
    cpu = LaunchCounter()
    with cpu.active():  # no GPU: interpreted launches are counted as they run; no hook call is a launch
        knobs.runtime.launch_enter_hook(meta)
    assert cpu.launches == {}


def test_a_launcher_entered_directly_logs_its_kernels_arguments_and_one_entered_from_jit_does_not():
    """The driver's launcher is where every compiled launch ends (CPU: its wrapper, called with the launcher's
    own argument layout); the JIT entry and `kernel[grid]` log theirs themselves."""
    seen = []
    counter = LaunchCounter()
    call = counter._wrap_launcher(lambda launcher, *args: seen.append(args))
    fixed = (1, 1, 1, 0, 77, None, None, None, None)  # grid, stream, function, metadata, hooks
    call(object(), *fixed, torch.empty(4), 2.5, 4)
    with counter._entered("jit"):
        call(object(), *fixed, torch.empty(4), 7.25, 4)
    logged = LaunchCounter()
    logged.note_arguments((2.5,), {})
    assert len(seen) == 2 and counter.floats == logged.floats and len(logged.floats) == 1
    assert list(counter.scalars.calls) == ["direct#77"]


def test_a_counter_wrapper_replaced_during_the_call_is_marked():
    from triton.runtime.interpreter import InterpretedFunction

    counter = LaunchCounter()
    with counter.active():
        assert counter.displaced() == []
        wrapper = InterpretedFunction.__dict__["run"]
        InterpretedFunction.run = wrapper.__wrapped__  # triton's own again: launches unlogged
        (mark,) = counter.displaced()
        InterpretedFunction.run = wrapper
    assert "InterpretedFunction.run was replaced during the call" in mark
    assert InterpretedFunction.__dict__["run"] is wrapper.__wrapped__


def test_one_session_records_aten_ops_on_every_thread_and_splits_launch_ranges():
    from torch._C._profiler import _RecordFunctionFast

    x = torch.randn(64)
    side = threading.Thread(target=lambda: torch.mul(x, x))
    name = LaunchCounter().range_name
    with Session("cpu", name) as session:
        torch.add(x, x)
        with _RecordFunctionFast(name):
            torch.sub(x, x)
        side.start()
        side.join()
    rep = session.report(())
    assert rep["available"] and rep["launch_ranges"] == 1
    assert rep["cpu_ops"]["aten::add.Tensor"] == 1 and rep["cpu_ops"]["aten::mul.Tensor"] == 1
    assert rep["cpu_ops_in_launch"] == {"aten::sub.Tensor": 1}
    assert rep["kernels"] == [] and rep["call_stream"] is None


def _report(memcpy=(), kernels=(), call_stream=7, args=None, returns=None, **fields):
    """A result report on an accelerator, profiled; copies and kernels as (kind, bytes) and Kernel fields."""
    profile = Profile(available=True, reason="", expected=True, device="cuda", call_stream=call_stream,
                      kernels=tuple(Kernel(**k) for k in kernels), memcpy=tuple(Memcpy(*c) for c in memcpy))
    sizes = Sizes(args=args or {"self": (4096, 16384), "other": (4096, 16384)}, returns=returns or ((4096, 16384),))
    return call_report(leaves=[Leaf(type="torch.Tensor", plain=True)], sizes=sizes, profile=profile, **fields)


def test_host_compute_needs_copies_as_large_as_the_data():
    task = example_task()
    assert host_compute.judge(task, _report([("DtoH", 4), ("HtoD", 64)])) is None
    assert "device to host" in host_compute.judge(task, _report([("DtoH", 16384)]))
    assert "host to device" in host_compute.judge(task, _report([("HtoD", 8192)] * 2))
    tiny = _report([("DtoH", 64)], args={"self": (16, 64)}, returns=((16, 64),))
    assert host_compute.judge(task, tiny) is None  # too small to tell a copy of data from a copy of metadata


MINE = {"name": "_add_kernel", "stream": 7, "origin": "triton", "library": "triton", "count": 1, "us": 1.0}


def test_side_stream_is_judged_by_where_kernels_ran():
    task = example_task()
    assert side_stream.judge(task, _report(kernels=[MINE])) is None
    other = {**MINE, "stream": 13}
    assert "_add_kernel (stream 13, 1x)" in side_stream.judge(task, _report(kernels=[MINE, other]))


def test_a_triton_device_kernel_satisfies_the_launch_check():
    task = example_task()
    assert no_launch.judge(task, _report(kernels=[MINE], launches={})) is None
    library = _report(kernels=[{**MINE, "origin": "library"}], launches={})
    assert no_launch.judge(task, library) == "no Triton kernel was launched during the call"


def test_profiler_stopped_by_the_candidate_is_tampering(tmp_path):
    code = SKIPS_EMPTY + '''

_inner = add_Tensor


def add_Tensor(self, other, *, alpha=1):
    out = _inner(self, other)
    torch._C._autograd._disable_profiler()
    return out
'''
    _, calls = serve(tmp_path, code, [FULL])
    (reply, verdict), = calls
    assert verdict.status is Status.TAMPERING and "device activity recorder switched off" in verdict.evidence
    assert reply.report.profile.expected and not reply.report.profile.available


# A library's lazy import starting a native pool during the first call (Liger-Kernel's loads pandas and PIL, and
# 16 threads that sleep afterwards): threads started in C, running no Python, asleep. pause() is such a thread.
NATIVE_POOL_IN_FIRST_CALL = ADD_KERNEL + '''
import ctypes

_libc = ctypes.CDLL(None)
_pool = []


def add_Tensor(self, other, *, alpha=1):
    if not _pool:
        for _ in range(3):
            tid = ctypes.c_ulong()
            _libc.pthread_create(ctypes.byref(tid), None, _libc.pause, None)
            _pool.append(tid)
    out = torch.empty_like(self)
    _launch(self, other, out)
    return out
'''


def test_a_native_pool_started_in_a_call_and_left_asleep_passes(tmp_path):
    _, calls = serve(tmp_path, NATIVE_POOL_IN_FIRST_CALL, [FULL, FULL])
    assert [v.status for _, v in calls] == [Status.PASSED, Status.PASSED], [v.evidence for _, v in calls]
    first, second = (r.report.threads for r, _ in calls)
    assert len(first.at_end) == 3 and all(not t.python and t.state == "S" for t in first.at_end), first
    assert len(second.at_start) == 3 and all(t.call_cpu_s == 0 for t in second.at_start), second


# A thread started in C that runs Python (a ctypes callback): threading does not know it, the interpreter does.
NATIVE_THREAD_RUNNING_PYTHON = NATIVE_POOL_IN_FIRST_CALL.replace(
    "_libc.pause, None)", "_PY_ROUTINE, None)").replace("_pool = []", '''_pool = []


@ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
def _PY_ROUTINE(arg):
    import time
    while True:
        time.sleep(0.05)''')


def test_a_thread_started_in_c_that_runs_python_is_tampering(tmp_path):
    _, calls = serve(tmp_path, NATIVE_THREAD_RUNNING_PYTHON, [FULL])
    (reply, verdict), = calls
    assert verdict.status is Status.TAMPERING and "left running after the call" in verdict.evidence
    assert all(t.python for t in reply.report.threads.at_end), reply.report.threads
