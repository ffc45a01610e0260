"""The worker process: imports one candidate and runs it on the inputs the evaluator sends.

It never decides a verdict. It draws each round's inputs from the seed the evaluator names (or takes
them from shared memory), reports their fingerprints before and after the call, and sends back the
tensors the call produced and wrote (raw bytes in the shared-memory arena the evaluator handed it,
described as JSON over its pipe) with the evidence it saw: aten ops dispatched, Triton launches, replaced
functions, threads and streams left behind, exceptions. The candidate's stdout and stderr go to a log
file (the evaluator shows its tail), never to the pipe, so nothing the candidate prints reaches the verdict.

Messages to the evaluator are bytes: a JSON header, then (for results) the JSON description of the tensors.
"""

from __future__ import annotations

import faulthandler
import importlib.util
import json
import os
import resource
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

TRACE_CHARS = 3000


def _send(conn: Any, header: dict[str, Any], payload: bytes | None = None) -> None:
    conn.send_bytes(json.dumps(header, default=str).encode())
    if payload is not None:
        conn.send_bytes(payload)


def _trace(exc: BaseException) -> str:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return text[-TRACE_CHARS:]


def _redirect_output(log_path: str) -> Any:
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    log = os.fdopen(fd, "w", buffering=1)
    faulthandler.enable(file=log, all_threads=True)
    return log


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _cap_memory(device: str, cap_bytes: int, device_fraction: float) -> str:
    """Host: address space beyond what is mapped now; accelerator: a share of its memory."""
    import torch

    kind = torch.device(device).type
    if kind == "cpu":
        if cap_bytes <= 0:
            return "none"
        limit = _vm_bytes() + cap_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        return f"RLIMIT_AS {limit}"
    # RLIMIT_AS would break the device runtime (it reserves huge virtual ranges): cap device memory instead.
    mod = getattr(torch, kind)
    if device_fraction > 0 and hasattr(mod, "set_per_process_memory_fraction"):
        mod.set_per_process_memory_fraction(min(1.0, device_fraction), torch.device(device))
        return f"device fraction {device_fraction:.3f}"
    return "none"


def _watched() -> dict[str, tuple[Any, str]]:
    """Functions the candidate must leave alone: comparison, timing, transfer, and the evaluator's own."""
    import importlib
    import multiprocessing.connection as mpc
    import time as time_mod

    import torch

    pairs: dict[str, tuple[Any, str]] = {}
    for owner, names, label in [
        (torch, ["allclose", "isclose", "equal", "save", "load", "empty", "isnan", "isinf", "where"], "torch"),
        (torch.testing, ["assert_close"], "torch.testing"),
        (torch.Tensor, ["cpu", "to", "clone", "copy_", "untyped_storage", "data_ptr", "set_", "as_strided",
                        "__eq__", "__ne__", "abs", "sum", "any", "all"], "torch.Tensor"),
        (torch.cuda, ["synchronize", "current_stream", "Event"], "torch.cuda"),
        (torch.cuda.Event, ["elapsed_time", "record", "synchronize", "query"], "torch.cuda.Event"),
        (torch.profiler, ["profile"], "torch.profiler"),
        (time_mod, ["perf_counter", "perf_counter_ns", "time", "monotonic", "sleep"], "time"),
        (mpc.Connection, ["send_bytes", "recv_bytes", "recv", "send"], "Connection"),
        (json, ["dumps"], "json"),
        (threading, ["enumerate", "active_count"], "threading"),
    ]:
        for n in names:
            if hasattr(owner, n):
                pairs[f"{label}.{n}"] = (owner, n)
    try:
        import triton.testing

        pairs["triton.testing.do_bench"] = (triton.testing, "do_bench")
    except ImportError:
        pass
    for modname in ("kernelgenbench.sandbox.worker", "kernelgenbench.sandbox.dispatch",
                    "kernelgenbench.evaluator.transfer", "kernelgenbench.sandbox.launches",
                    "kernelgenbench.evaluator.timing",
                    "kernelgenbench.evaluator.inputs"):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        for n, v in vars(mod).items():
            if callable(v) and getattr(v, "__module__", None) == modname:
                pairs[f"{modname}.{n}"] = (mod, n)
        for cls_name in ("DispatchRecorder", "LaunchCounter", "Session", "ThreadWatch"):
            cls = getattr(mod, cls_name, None)
            if isinstance(cls, type) and cls.__module__ == modname:
                for n, v in vars(cls).items():
                    if callable(v):
                        pairs[f"{modname}.{cls_name}.{n}"] = (cls, n)
    try:
        from triton.runtime.jit import JITFunction

        pairs["triton.JITFunction.run"] = (JITFunction, "run")
        from triton.runtime.interpreter import InterpretedFunction

        pairs["triton.InterpretedFunction.run"] = (InterpretedFunction, "run")
    except ImportError:
        pass
    import builtins

    for n in ("isinstance", "type", "len", "getattr", "id"):
        pairs[f"builtins.{n}"] = (builtins, n)
    return pairs


class _Sentinel:
    pass


_MISSING = _Sentinel()


def _snapshot(watched: dict[str, tuple[Any, str]]) -> dict[str, Any]:
    return {k: owner.__dict__.get(n, _MISSING) if isinstance(owner, type) else getattr(owner, n, _MISSING)
            for k, (owner, n) in watched.items()}


def _tampered(watched: dict[str, tuple[Any, str]], snap: dict[str, Any]) -> list[str]:
    now = _snapshot(watched)
    return [f"{k} was replaced" for k in watched if now[k] is not snap[k]]


class _Activity:
    """Threads the candidate left or started (sandbox/threads.py: OS threads against a baseline taken after
    the runtime is warmed up, before the import), and the device-activity profiler's warm-up
    (sandbox/activity.py). `armed` while the candidate is imported or called; each call's evidence goes into
    its header (`_run_call`), judged by evaluator/checks."""

    current: _Activity | None = None  # the installed one, read by `_run_call`

    def __init__(self) -> None:
        from kernelgenbench.sandbox.threads import ThreadWatch

        self.watch = ThreadWatch()

    @property
    def armed(self) -> bool:
        """Thread starts are recorded while armed."""
        return self.watch.armed

    @armed.setter
    def armed(self, value: bool) -> None:
        self.watch.armed = value

    def install(self) -> None:
        """Warm the runtime up, then take the thread baseline and watch thread starts."""
        from kernelgenbench.sandbox import activity, launches

        device = _warm_up()
        launches.watch_loaded_kernels()
        activity.warm_up(device)
        self.watch.install()
        self.watch.take_baseline()
        _Activity.current = self

    def evidence(self) -> list[str]:
        """Tampering marks: the watch itself undone (threads are judged per call from the header's "threads")."""
        marks = self.watch.broken()
        if _Activity.current is not self:
            marks.append("the worker's thread watch was replaced")
        return marks


def _warm_up() -> str:
    """Start the runtime's own threads (CPU pool, numpy's BLAS, device context and libraries) before the
    baseline; the device the worker runs on ('cpu' when Triton interprets)."""
    import torch

    (torch.ones(64, 64) @ torch.ones(64, 64)).sum()
    torch.ones(1 << 16).add_(1)
    try:
        import numpy

        numpy.ones((64, 64)) @ numpy.ones((64, 64))
    except ImportError:
        pass
    if os.environ.get("TRITON_INTERPRET") == "1" or not torch.cuda.is_available():
        return "cpu"
    device = f"cuda:{torch.cuda.current_device()}"
    # Kineto tears CUPTI down after each session by default and starts it (and its threads) again in the next:
    # keep it up, so its threads are the baseline's and each call's session starts fast.
    os.environ.setdefault("TEARDOWN_CUPTI", "0")
    (torch.ones(64, 64, device=device) @ torch.ones(64, 64, device=device)).sum().item()
    try:
        from triton.runtime import driver

        driver.active.get_current_stream(driver.active.get_current_device())
    except Exception:  # noqa: BLE001 - a triton without this driver API: its threads start later, if any
        pass
    torch.cuda.synchronize()
    return device


def _import_candidate(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("kgb_candidate", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["kgb_candidate"] = module
    spec.loader.exec_module(module)
    return module


def _sync(device: str) -> None:
    import torch

    kind = torch.device(device).type
    if kind != "cpu":
        getattr(torch, kind).synchronize()


def _leaf_meta(value: Any, storages: dict[int, str]) -> dict[str, Any]:
    import torch

    meta: dict[str, Any] = {"type": f"{type(value).__module__}.{type(value).__qualname__}"}
    if isinstance(value, torch.Tensor):
        meta["device"] = str(value.device)
        meta["alias"] = storages.get(value.untyped_storage().data_ptr()) if value.numel() else None
    return meta


def _portable(value: Any) -> Any:
    """What may travel back for one output leaf: a tensor (sent as a plain one), a plain scalar, or None."""
    import torch

    if isinstance(value, torch.Tensor) or value is None or type(value) in (int, float, bool, complex, str):
        return value
    return None


def _has_tensor(value: Any) -> bool:
    return hasattr(value, "untyped_storage") or (isinstance(value, list) and any(_has_tensor(v) for v in value))


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        out: list[Any] = []
        for v in value:
            out.extend(_flatten(v))
        return out
    return [value]


class _LayoutMismatch(Exception):
    pass


def _refill(old: Any, new: Any) -> Any:
    """`new`'s values written into `old`'s buffers (same addresses), its plain values kept; None unless every
    tensor's dtype, device, sizes, strides, offset and storage size match."""
    import torch

    from kernelgenbench.evaluator.transfer import storage_bytes

    pairs: list[tuple[Any, Any]] = []

    def walk(o: Any, n: Any) -> Any:
        if isinstance(n, torch.Tensor):
            same = isinstance(o, torch.Tensor) and (o.dtype, o.device, o.shape, o.stride(), o.storage_offset(),
                                                     o.untyped_storage().nbytes()) == (
                n.dtype, n.device, n.shape, n.stride(), n.storage_offset(), n.untyped_storage().nbytes())
            if not same:
                raise _LayoutMismatch
            pairs.append((o, n))
            return o
        if isinstance(n, (list, tuple)):
            if type(o) is not type(n) or len(o) != len(n):
                raise _LayoutMismatch
            return type(n)(walk(a, b) for a, b in zip(o, n, strict=True))
        if isinstance(n, dict):
            if not isinstance(o, dict) or o.keys() != n.keys():
                raise _LayoutMismatch
            return {k: walk(o[k], n[k]) for k in n}
        return n

    try:
        merged = walk(old, new)
    except _LayoutMismatch:
        return None
    for o, n in pairs:  # whole storages: the bytes around a view (and poisoned outputs) come along
        storage_bytes(o).copy_(storage_bytes(n))
    return merged


def _workload(task: Any, workload_id: str) -> Any:
    return next(w for w in task.workloads if w.id == workload_id)


def _draw(task: Any, spec: dict[str, Any], device: str) -> tuple[dict[str, Any], dict[str, str]]:
    """A round's inputs drawn here, as the evaluator drew them, and their fingerprints under its key."""
    from kernelgenbench.evaluator.inputs import round_inputs
    from kernelgenbench.evaluator.transfer import fingerprint

    args = round_inputs(task, _workload(task, spec["workload_id"]), seed=int(spec["seed"]), device=device)
    return args, {k: fingerprint(v, int(spec["key"])) for k, v in args.items()}


def _run_call(fn: Callable[..., Any], task: Any, args: dict[str, Any], device: str,
              send: Callable[[Any], bytes], key: int | None = None,
              before: dict[str, str] | None = None) -> tuple[dict, bytes | None]:
    """Call the candidate once under the recorders; the evidence header and the outputs' transfer.

    With a fingerprint `key` and the inputs' fingerprints `before` the call (inputs drawn here), an argument
    the task does not declare mutable travels back only if its fingerprint changed; otherwise every tensor
    argument does.
    """
    from kernelgenbench.evaluator.inputs import split_call_args
    from kernelgenbench.sandbox.activity import Session
    from kernelgenbench.sandbox.dispatch import DispatchRecorder
    from kernelgenbench.sandbox.launches import LaunchCounter

    storages: dict[int, str] = {}
    for name, v in args.items():
        for t in _flatten(v):
            if hasattr(t, "untyped_storage") and t.numel():
                storages.setdefault(t.untyped_storage().data_ptr(), name)
    pos, kw = split_call_args(task, args)
    rec = DispatchRecorder()
    counter = LaunchCounter(rec)
    watch = _Activity.current.watch if _Activity.current is not None else None
    at_start = watch.new() if watch is not None else []
    if watch is not None:
        watch.started.clear()
    session = Session(device, counter.range_name)  # one profiler session per call (sandbox/activity.py)
    try:
        with session:
            t0 = time.perf_counter()
            with counter.active(), rec:
                ret = fn(*pos, **kw)
            _sync(device)
            elapsed = time.perf_counter() - t0
    except BaseException as exc:  # noqa: BLE001 - everything the candidate raises is evidence, SystemExit included
        return {"event": "error", "exc_type": f"{type(exc).__module__}.{type(exc).__qualname__}",
                "message": str(exc)[:500], "traceback": _trace(exc),
                "launches": dict(counter.launches), "launch_ranges": counter.ranges, "ops": list(rec.ops),
                **_evidence(session, watch, at_start)}, None
    leaves = _flatten(ret) if ret is not None else []
    header = {
        "event": "result",
        "elapsed_s": elapsed,
        "compile_s": counter.compile_s,
        "launches": dict(counter.launches),
        "launch_ranges": counter.ranges,
        "ops": list(rec.ops),
        "views": sorted(rec.views),
        "ops_in_launch": sum(rec.in_launch.values()),
        "returns_none": ret is None,
        "leaves": [_leaf_meta(v, storages) for v in leaves],
        "sizes": _sizes(args, leaves),
        **_evidence(session, watch, at_start),
    }
    t1 = time.perf_counter()
    sent_args = {k: v if _has_tensor(v) else None for k, v in args.items()}
    if key is not None and before is not None:
        from kernelgenbench.evaluator.transfer import fingerprint

        mutable = {p.name for p in task.mutable_params}
        after = {k: fingerprint(v, key) for k, v in args.items() if k not in mutable}
        header["inputs_after"] = after
        sent_args = {k: v for k, v in sent_args.items() if k in mutable or after.get(k) != before.get(k)}
    # One transfer for outputs and arguments: an output that aliases an argument still does on the other side.
    payload = {"returns": [_portable(v) for v in leaves], "args": sent_args}
    try:
        sent = send(payload)
        header["send_s"] = time.perf_counter() - t1
        return header, sent
    except (TypeError, ValueError, RuntimeError) as exc:  # what the candidate returned cannot travel
        header["transfer_error"] = f"{type(exc).__name__}: {exc}"[:300]
        return header, None


def _evidence(session: Any, watch: Any, at_start: list[str]) -> dict[str, Any]:
    """The device-activity profile and the threads of one call (after the call)."""
    from kernelgenbench.sandbox.launches import loaded_kernels

    out: dict[str, Any] = {"profile": session.report(loaded_kernels())}
    if watch is not None:
        out["threads"] = watch.call_report(at_start)
    return out


def _tensor_size(value: Any) -> list[int] | None:
    """[numel, bytes] over the tensors in a value (None when it holds none)."""
    tensors = [t for t in _flatten(value) if hasattr(t, "untyped_storage")]
    if not tensors:
        return None
    return [sum(t.numel() for t in tensors), sum(t.numel() * t.element_size() for t in tensors)]


def _sizes(args: dict[str, Any], leaves: list[Any]) -> dict[str, Any]:
    """Sizes of what the call was given and produced: per returned leaf and per tensor argument (after the
    call: an `out=` argument may have been resized)."""
    sized = {k: _tensor_size(v) for k, v in args.items()}
    return {"returns": [_tensor_size(v) for v in leaves], "args": {k: v for k, v in sized.items() if v is not None}}


def _time(fn: Callable[..., Any], task: Any, msg: dict[str, Any], device: str) -> dict[str, Any]:
    from kernelgenbench.evaluator import timing
    from kernelgenbench.evaluator.inputs import make_args, split_call_args

    workload = _workload(task, msg["workload_id"])
    seeds = msg["seeds"]

    def arg_sets(i: int) -> tuple[list[Any], dict[str, Any]]:
        return split_call_args(task, make_args(task, workload, seed=seeds[i % len(seeds)], device=device))

    config = timing.TimingConfig(**msg.get("config", {}))
    return timing.time_callable(fn, arg_sets, device=device, config=config).to_dict()


def main(conn: Any, setup: dict[str, Any]) -> None:
    """Worker entry point (run in a fresh process): import the candidate, then serve call/time requests."""
    log = _redirect_output(setup["log_path"])
    device = setup["device"]
    # Read by triton at import (spawned workers) and at decoration time; CPU means the interpreter.
    os.environ["TRITON_INTERPRET"] = "1" if torch_device_type(device) == "cpu" else "0"
    activity = _Activity()
    try:
        cap = _cap_memory(device, int(setup.get("memory_cap_bytes", 0)), float(setup.get("device_memory_fraction", 0.9)))
        import torch

        from kernelgenbench.dataset.record import Task
        from kernelgenbench.evaluator.transfer import move_tree, pack, receive_arenas, unpack

        arenas = receive_arenas(conn)  # sent by the evaluator before anything else
        task = Task.from_dict(setup["record"])
        if torch.device(device).type == "cuda":
            torch.cuda.set_device(torch.device(device))
        watched = _watched()
        snap = _snapshot(watched)
        activity.install()
        watched.update({"threading.Thread.start": (threading.Thread, "start")})
        snap = {**snap, "threading.Thread.start": threading.Thread.__dict__["start"]}
    except BaseException as exc:  # noqa: BLE001 - report the setup failure instead of dying silently
        _send(conn, {"event": "setup_error", "exc_type": type(exc).__name__, "traceback": _trace(exc)})
        return
    t0 = time.perf_counter()
    activity.armed = True
    try:
        module = _import_candidate(setup["code_path"])
    except BaseException as exc:  # noqa: BLE001 - import errors, syntax errors, SystemExit: all evidence
        _send(conn, {"event": "import_error", "exc_type": f"{type(exc).__module__}.{type(exc).__qualname__}",
                     "message": str(exc)[:500], "traceback": _trace(exc)})
        return
    activity.armed = False
    fn = getattr(module, setup["entry_point"], None)
    tamper = _tampered(watched, snap) + activity.evidence()
    _send(conn, {"event": "ready", "import_s": time.perf_counter() - t0, "memory_cap": cap,
                 "entry_point_found": callable(fn), "tampering": tamper})
    if not callable(fn) or tamper:
        return
    keep: list[Any] = []  # the previous round's buffers stay alive: fresh addresses unless a round reuses them

    def send(obj: Any) -> bytes:
        return json.dumps(pack(obj, arenas.outbox)).encode()

    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        op = msg.get("op")
        if op == "exit":
            return
        if op == "call":
            t_in = time.perf_counter()
            draw, before = msg.get("draw"), None
            if draw is not None:
                try:
                    args, before = _draw(task, draw, device)
                except Exception as exc:  # noqa: BLE001 - the evaluator then sends the inputs instead
                    _send(conn, {"event": "draw_error", "message": f"{type(exc).__name__}: {exc}"[:500]})
                    continue
            else:
                args = move_tree(unpack(msg["args"], arenas.inbox), device)
            if msg.get("reuse") and keep:
                # This round runs in the previous round's buffers with new values, so a result cached by
                # address goes stale (and fails) instead of being served again.
                args = _refill(keep[0], args) or args
            t_in = time.perf_counter() - t_in
            activity.armed = True
            header, payload = _run_call(fn, task, args, device, send, key=None if draw is None else int(draw["key"]),
                                        before=before)
            activity.armed = False
            header["receive_s"] = t_in
            if before is not None:
                header["inputs_before"] = before
            header["tampering"] = _tampered(watched, snap) + activity.evidence()
            keep[:] = [args]
            _send(conn, header, payload)
        elif op == "time":
            try:
                result = _time(fn, task, msg, device)
                _send(conn, {"event": "timing", "timing": result, "tampering": _tampered(watched, snap)})
            except BaseException as exc:  # noqa: BLE001 - a timing failure is reported, not fatal
                _send(conn, {"event": "timing", "timing": {"available": False, "reason": f"timing failed: {exc!r}"[:500]},
                             "traceback": _trace(exc)})
        log.flush()


def torch_device_type(device: str) -> str:
    """'cuda' for 'cuda:0' without importing torch."""
    return device.split(":", 1)[0]
