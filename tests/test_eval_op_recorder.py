"""The op recorder's integrity and the checks on op evidence it cannot give alone: the sealed dispatch recorder
marks clearing, resetting, pausing and popping; the profiler's C++-level ops and ops inside a Triton launch are
judged by the same derived rule; the worker's guards are bound before the candidate and see a replaced
`__code__` or sys.modules entry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import types
from dataclasses import replace

import pytest
import torch
from evidence_helpers import NO_PROFILE, call_report
from torch.utils import _python_dispatch as pd

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks import REGISTRY, judge_report
from kernelgenbench.evaluator.checks.launch_ops import judge as judge_launch_ops
from kernelgenbench.evaluator.checks.profiled_ops import judge as judge_profiled
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.dispatch import sealed_recorder
from kernelgenbench.sandbox.protocol import Profile


def _task(category: str = "elementwise") -> Task:
    return types.SimpleNamespace(category=category, semantics="deterministic")  # what the checks read of a task


def _profile(**ops: dict[str, int]) -> Profile:
    """A CPU profile (a process where the profiler was not warmed up) with the given op counts."""
    return Profile(available=True, reason="", expected=False, device="cpu", **ops)


def _under(fn, launches: int = 0):
    rec, check, on_top = sealed_recorder()
    with rec:
        fn(rec)
        top = on_top()
        marks = check(launches)
    return top, marks


def test_an_untouched_recorder_is_intact():
    x = torch.ones(4)
    top, marks = _under(lambda rec: x + 1)
    assert top and marks == []


def test_clearing_editing_or_replacing_the_counts_is_marked():
    x = torch.ones(4)

    def swap(rec):
        x + 1
        rec.ops["aten::empty.memory_format"] += rec.ops.pop("aten::add.Tensor")

    def reset(rec):
        x + 1
        rec.ops = type(rec.ops)()

    for attack in (lambda rec: (x + 1, rec.ops.clear()), swap):
        assert any("counts were changed" in m for m in _under(attack)[1])
    assert any("state was replaced" in m for m in _under(reset)[1])


def test_pausing_outside_a_launch_or_leaving_it_paused_is_marked():
    x = torch.ones(4)

    def pause(rec):
        rec.paused += 1
        x + 1
        rec.paused -= 1

    assert _under(pause)[1] == ["the dispatch recorder was paused 1 time(s) for 0 Triton launch(es)"]
    assert _under(pause, launches=1)[1] == []  # one launch's pause is the launch counter's
    left = _under(lambda rec: setattr(rec, "paused", 1), launches=1)[1]
    assert left == ["the dispatch recorder was left paused after the call"]


def test_a_popped_recorder_is_not_on_top():
    rec, check, on_top = sealed_recorder()
    with rec:
        assert on_top()
        with pd._pop_mode_temporarily():
            assert not on_top()
        assert on_top()


def test_profiled_compute_is_torch_fallback_with_the_mismatch_as_evidence():
    profile = _profile(cpu_ops={"aten::empty": 2, "aten::add.Tensor": 1, "aten::broadcast_tensors": 1})
    report = call_report(ops={"aten::empty.memory_format": 1}, profile=profile)
    hit = judge_profiled(_task(), report)
    assert hit and "not by the dispatch recorder" in hit and "aten::add.Tensor" in hit
    assert judge_report(REGISTRY, _task(), report).status is Status.TORCH_FALLBACK
    clean = replace(report, profile=replace(profile, cpu_ops={"aten::empty": 2, "aten::promote_types": 1}))
    assert judge_profiled(_task(), clean) is None
    assert judge_report(REGISTRY, _task(), clean).passed
    assert judge_profiled(_task(), replace(report, profile=NO_PROFILE)) is None


def test_compute_inside_a_launch_is_torch_fallback():
    own = {"aten::empty.memory_format": 6, "aten::set_.source_Storage": 6, "aten::new_empty": 3,
           "aten::set_.source_Storage_storage_offset": 3, "aten::copy_": 3}
    report = call_report(ops_in_launch=own, profile=_profile(cpu_ops_in_launch={"aten::copy_": 6, "aten::new_empty": 6}))
    assert judge_launch_ops(_task(), report) is None
    assert judge_launch_ops(_task("copy"), report) is None
    bad = replace(report, ops_in_launch={**own, "aten::mul.Tensor": 1})
    assert "aten::mul.Tensor" in judge_launch_ops(_task(), bad)
    prof_bad = replace(report, profile=_profile(cpu_ops_in_launch={"aten::mul": 2}))
    assert "aten::mul" in judge_launch_ops(_task(), prof_bad)


_INTERPRETED = textwrap.dedent("""
    import json, os
    os.environ["TRITON_INTERPRET"] = "1"
    import torch, triton, triton.language as tl
    from kernelgenbench.sandbox.activity import Session
    from kernelgenbench.sandbox.dispatch import sealed_recorder
    from kernelgenbench.sandbox.launches import LaunchCounter, loaded_kernels, watch_loaded_kernels

    @triton.jit
    def k(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

    x, y = torch.randn(300), torch.randn(300)
    out = torch.empty(300)
    watch_loaded_kernels()
    rec, check, on_top = sealed_recorder()
    counter = LaunchCounter(rec)
    session = Session("cpu", counter.range_name)  # as the worker nests them: the session outside the counter
    with session, counter.active(), rec:
        k[(3,)](x, y, out, 300, BLOCK=128)
        k[(1,)](x[::2], x[::2], out[::2], 150, BLOCK=256)  # views sharing one storage
        marks = check(counter.ranges)
    profile = session.report(loaded_kernels())
    print(json.dumps({"ops": rec.ops, "in_launch": rec.in_launch, "profile": profile, "marks": marks}))
""")


def test_the_interpreters_own_ops_in_a_launch_are_excused_and_nothing_else_is_seen():
    """What the Triton interpreter dispatches inside a launch (its host aliases and copies back), for real."""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, "-c", _INTERPRETED], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["marks"] == []
    assert set(got["in_launch"]) <= {"aten::empty.memory_format", "aten::new_empty", "aten::set_.source_Storage",
                                     "aten::set_.source_Storage_storage_offset", "aten::copy_"}
    assert got["in_launch"]["aten::copy_"] <= got["in_launch"]["aten::new_empty"]
    report = call_report(launches={"k": 2}, ops=got["ops"], ops_in_launch=got["in_launch"],
                         profile=Profile.from_dict(got["profile"]))
    assert got["profile"]["cpu_ops_in_launch"] and got["profile"]["available"]
    for category in ("elementwise", "copy"):
        assert judge_report(REGISTRY, _task(category), report).passed, category


def test_the_guard_sees_a_replaced_code_object_and_sys_modules_entry():
    from kernelgenbench.evaluator import transfer
    from kernelgenbench.sandbox import tamper_watch

    watched = {"transfer.fingerprint": (transfer, "fingerprint")}
    tampered = tamper_watch.guard(watched)
    assert tampered() == []
    code = transfer.fingerprint.__code__
    try:
        transfer.fingerprint.__code__ = (lambda value, key: "same").__code__
        assert tampered() == ["transfer.fingerprint was replaced"]
    finally:
        transfer.fingerprint.__code__ = code
    assert tampered() == []
    real = sys.modules["kernelgenbench.evaluator.transfer"]
    try:
        sys.modules["kernelgenbench.evaluator.transfer"] = types.ModuleType("kernelgenbench.evaluator.transfer")
        assert tampered() == ["sys.modules['kernelgenbench.evaluator.transfer'] was replaced"]
    finally:
        sys.modules["kernelgenbench.evaluator.transfer"] = real


def test_the_guard_watches_the_standard_library_whole_and_leaves_scalars_and_caches_alone():
    """Red team 17 rewrote every report through `json._default_encoder` (an instance, no function) and a global of
    `dataclasses`; every non-scalar global of a loaded stdlib module and every attribute of its classes is watched."""
    import dataclasses
    import json as json_mod
    from multiprocessing.reduction import ForkingPickler

    from kernelgenbench.sandbox import tamper_watch

    tampered = tamper_watch.guard({})
    assert tampered() == []
    cases = [(json_mod, "_default_encoder", json_mod.JSONEncoder(), "json: _default_encoder replaced"),
             (dataclasses, "_is_dataclass_instance", lambda obj: True,
              "dataclasses: _is_dataclass_instance replaced"),
             (ForkingPickler, "loads", classmethod(lambda cls, data: None),
              "multiprocessing.reduction.ForkingPickler: loads replaced")]
    for owner, name, value, mark in cases:
        real = owner.__dict__[name]
        try:
            setattr(owner, name, value)
            assert tampered() == [mark]
        finally:
            setattr(owner, name, real)
    assert tampered() == []
    from multiprocessing.connection import Connection

    try:
        Connection.send_bytes = lambda self, data: None  # added over _ConnectionBase's: shadows the inherited one
        Connection.warning_once = lambda self: None  # a new name runs no code of the worker (transformers does so)
        assert tampered() == ["multiprocessing.connection.Connection: send_bytes (added over an inherited one) "
                              "replaced"]
    finally:
        del Connection.send_bytes, Connection.warning_once
    import importlib
    import logging
    import tempfile

    tempfile.tempdir, before = "/tmp", tempfile.tempdir  # a scalar default its own code sets: no code runs there
    json_mod.JSONEncoder.__slotnames__ = []  # copyreg's cache
    importlib.invalidate_caches()  # bumps a class's int counter
    logging.captureWarnings(True)  # a documented hook (warnings.showwarning) the worker never calls
    factory = logging.getLogRecordFactory()
    logging.setLogRecordFactory(lambda *a, **k: factory(*a, **k))  # vLLM-style logging setup
    import time

    zone, time.tzname = time.tzname, ("KGB", "KGB")  # time.tzset() rebinds a tuple of strings (Liger's import)
    try:
        assert tampered() == []
    finally:
        time.tzname = zone
        tempfile.tempdir = before
        del json_mod.JSONEncoder.__slotnames__
        logging.captureWarnings(False)
        logging.setLogRecordFactory(factory)


def test_messages_are_encoded_without_code_looked_up_by_name():
    """The report's bytes come from the C encoder bound at import and the instance's own dict: a replaced module
    encoder, dataclass helper or property on the class changes nothing on the wire."""
    import dataclasses
    import json as json_mod

    from kernelgenbench.sandbox.protocol import Ready, encode, parse_message, replaced

    msg = Ready(event="ready", entry_point_found=True, tampering=("x",))
    real_encoder, real_asdict = json_mod._default_encoder, dataclasses.asdict
    try:
        json_mod._default_encoder = type("E", (json_mod.JSONEncoder,), {"encode": lambda self, o: "{}"})()
        dataclasses.asdict = lambda obj: {}
        Ready.tampering = property(lambda self: ())  # type: ignore[misc]
        raw = encode(replaced(msg, entry_point_found=False), reply_to=3)
    finally:
        json_mod._default_encoder, dataclasses.asdict = real_encoder, real_asdict
        del Ready.tampering
    assert parse_message(raw, reply_to=3) == Ready(event="ready", entry_point_found=False, tampering=("x",))
    with pytest.raises(TypeError, match="no field"):
        replaced(msg, unknown=1)


def test_bound_guards_do_not_follow_a_replaced_module():
    from kernelgenbench.sandbox import tamper_watch, worker

    b = worker._bind({})
    assert b.tampered() == []
    bound = b.fingerprint
    object.__setattr__(b, "fingerprint", lambda value, key: "same")  # rebinding needs memory access; marked
    assert b.tampered() == ["worker bound fingerprint was replaced"]
    object.__setattr__(b, "fingerprint", bound)
    real = sys.modules["kernelgenbench.evaluator.transfer"]
    try:
        fake = types.ModuleType("kernelgenbench.evaluator.transfer")
        fake.fingerprint = lambda value, key: "same"
        sys.modules["kernelgenbench.evaluator.transfer"] = fake
        assert b.fingerprint is real.fingerprint
    finally:
        sys.modules["kernelgenbench.evaluator.transfer"] = real
    watched = tamper_watch.watched_functions()
    for name in ("kernelgenbench.sandbox.dispatch.DispatchRecorder.__torch_dispatch__",
                 "kernelgenbench.sandbox.launches.LaunchCounter._wrap_run", "kernelgenbench.evaluator.timing.time_callable",
                 "kernelgenbench.evaluator.transfer.fingerprint", "TorchDispatchMode.__exit__"):
        assert name in watched, name


def test_a_class_swap_of_the_recorder_is_marked():
    x = torch.ones(4)

    class Quiet(type(sealed_recorder()[0])):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    def swap_class(rec):
        rec.__class__ = Quiet
        x + 1

    assert any("state was replaced" in m for m in _under(swap_class)[1])


_GPU_RUN = textwrap.dedent("""
    import _thread, json
    import torch, triton, triton.language as tl
    from kernelgenbench.sandbox.activity import Session
    from kernelgenbench.sandbox.dispatch import sealed_recorder
    from kernelgenbench.sandbox.launches import LaunchCounter, loaded_kernels, watch_loaded_kernels

    @triton.jit
    def k(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

    x = torch.randn(1 << 16, device="cuda"); y = torch.randn_like(x)
    k[(64,)](x, y, torch.empty_like(x), x.numel(), BLOCK=1024)  # compiled before the profiled call
    watch_loaded_kernels()
    out = {}
    for name, sneaky in (("honest", False), ("raw_thread", True)):
        rec, check, on_top = sealed_recorder()
        counter = LaunchCounter(rec)
        session = Session("cuda", counter.range_name)  # exits after the call's device work, as in the worker
        with session, counter.active(), rec:
            z = torch.empty_like(x)
            k[(64,)](x, y, z, x.numel(), BLOCK=1024)
            if sneaky:
                lock = _thread.allocate_lock(); lock.acquire()
                _thread.start_new_thread(lambda: (torch.mul(x, y), lock.release()), ())
                lock.acquire()
            marks = check(counter.ranges) + ([] if on_top() else ["off"])
        out[name] = {"ops": rec.ops, "in_launch": rec.in_launch, "profile": session.report(loaded_kernels()),
                     "marks": marks}
    print(json.dumps(out))
""")


@pytest.mark.gpu
def test_on_a_gpu_compiled_launches_dispatch_nothing_and_a_raw_thread_is_seen(tmp_path):
    script = tmp_path / "gpu_run.py"  # a file: @triton.jit reads its kernel's source
    script.write_text(_GPU_RUN)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TRITON_INTERPRET": "0"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    honest, sneaky = got["honest"], got["raw_thread"]
    assert honest["marks"] == [] and honest["in_launch"] == {} and honest["profile"]["cpu_ops_in_launch"] == {}
    report = call_report(ops=honest["ops"], ops_in_launch=honest["in_launch"], profile=Profile.from_dict(honest["profile"]))
    assert judge_report(REGISTRY, _task(), report).passed
    report = replace(report, ops=sneaky["ops"], ops_in_launch=sneaky["in_launch"],
                     profile=Profile.from_dict(sneaky["profile"]))
    verdict = judge_report(REGISTRY, _task(), report)
    assert verdict.status is Status.TORCH_FALLBACK and "aten::mul" in verdict.evidence
