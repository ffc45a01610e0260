"""One profiler session per candidate call: what really ran, recorded below Python.

torch's profiler (Kineto; CUPTI on NVIDIA devices) records aten ops at the C++ level on every thread, and
on accelerators every device kernel with the stream it ran on and every memcpy with its direction and
size. The report (the call report's "profile", typed as sandbox/protocol.py's Profile):

    {"available": bool, "reason": str, "expected": bool, "device": "cpu" | "cuda" | ...,
     "cpu_ops": {"aten::add.Tensor": n, ...},   # dispatcher ops of every namespace (nested ones too) outside
                                                 # Triton launches, all threads ("mkldnn::_linear_pointwise" too)
     "cpu_ops_in_launch": {...},                 # those inside a Triton launch range (LaunchCounter.range_name)
     "cpu_op_parts": {"aten::to.dtype": [[], ["aten::_to_copy"]], ...},  # per op name, every distinct set of
                                                 # ops recorded directly under one of its calls (a composite's parts)
     "launch_ranges": n,                         # those launch ranges the profiler saw
     "kernels": [{"name", "stream", "origin": "triton" | "library", "library", "count", "us"}],
     "call_stream": int | None,                  # the stream the call was made on (a marker kernel ran there)
     "memcpy": [{"kind": "HtoD" | "DtoH" | "DtoD" | ..., "bytes": int}]}

"expected" says whether a session worked in this process before the candidate was imported (`warm_up`):
when it did, a session that fails or records nothing during a call is the candidate's doing.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from kernelgenbench.sandbox.protocol import HOST_CODE, LAUNCH_PART

# Kernels the session itself launches on the call's stream (torch.cuda._sleep: no dispatcher op).
_MARKER = "spin_kernel"
_MEMCPY_KIND = re.compile(r"\b(HtoD|DtoH|DtoD|HtoH|PtoP|HtoA|AtoH|DtoA|AtoD|AtoA)\b")
_LIBRARIES = (("cublas", "cublas"), ("cutlass", "cutlass"), ("cudnn", "cudnn"), ("xmma", "cublas"),
              ("gemm", "cublas"), ("at::", "aten"), ("native::", "aten"), ("c10::", "aten"),
              ("cub::", "cub"), ("thrust::", "thrust"), ("nccl", "nccl"), ("flash", "flash-attn"))

# A dispatcher op as the profiler names it: namespace::name (the overload comes apart). Not the session's own
# ranges, nor "autograd::engine::evaluate_function: ..." (its ops are recorded beneath it).
_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*")

_STATE: dict[str, Any] = {"expected": False, "reason": "no session ran before the candidate was imported"}


@functools.cache
def _experimental_config() -> Any:
    """All threads, overload names and kernel metadata where this torch has them (2.11 and 2.13 do)."""
    from torch._C._profiler import _ExperimentalConfig

    kept: dict[str, bool] = {}
    for option in ("profile_all_threads", "capture_overload_names", "expose_kineto_event_metadata"):
        try:
            _ExperimentalConfig(**kept, **{option: True})
        except TypeError:  # an older torch without this option: go without it
            continue
        kept[option] = True
    _STATE["options"] = sorted(kept)
    return _ExperimentalConfig(**kept)


def _device_kind(device: str) -> str:
    return device.split(":", 1)[0]


def _activities(kind: str) -> set[Any]:
    from torch._C._profiler import ProfilerActivity

    acts = {ProfilerActivity.CPU}
    if kind == "cuda":
        acts.add(ProfilerActivity.CUDA)
    elif kind == "xpu" and hasattr(ProfilerActivity, "XPU"):
        acts.add(ProfilerActivity.XPU)
    return acts


def _marker(kind: str) -> None:
    """A tiny kernel on the current stream, so the session knows which stream the call was made on."""
    if kind == "cuda":
        import torch

        torch.cuda._sleep(1)


class Session:
    """One profiling session: enter before the call, exit after its device work finished; then `report()`."""

    def __init__(self, device: str, launch_range: str) -> None:
        self.kind = _device_kind(device)
        self.launch_range = launch_range
        self._events: list[Any] | None = None
        self._error = ""
        self._on = False

    def __enter__(self) -> Session:
        from torch._C._autograd import _enable_profiler, _prepare_profiler
        from torch._C._profiler import ProfilerConfig, ProfilerState

        try:
            config = ProfilerConfig(ProfilerState.KINETO, False, False, False, False, False, _experimental_config())
            acts = _activities(self.kind)
            _prepare_profiler(config, acts)
            _enable_profiler(config, acts)
            self._on = True
            self._mark("begin")
            _marker(self.kind)
        except Exception as exc:  # noqa: BLE001 - another session running (the candidate's?), no profiler here,
            # an API this torch lacks: the report says which, and the judge weighs it against the warm-up
            self._error = f"profiler did not start: {exc!r}"[:300]
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._on:
            return
        from torch._C._autograd import _disable_profiler

        try:
            _marker(self.kind)
            self._sync()
            self._mark("end")
        except Exception as exc:  # noqa: BLE001 - a device error (the call's): the session is stopped below anyway
            self._error = f"device error at the end of the call: {exc!r}"[:300]
        try:
            events = list(_disable_profiler().events())
            if not self._error:
                self._events = events
        except Exception as exc:  # noqa: BLE001 - the session was stopped or replaced during the call
            self._error = self._error or f"profiler stopped during the call: {exc!r}"[:300]
        self._on = False

    def _mark(self, which: str) -> None:
        """A host-side range that must be in the events: a session stopped or restarted loses it."""
        try:
            from torch._C._profiler import _RecordFunctionFast as mark
        except ImportError:  # an older torch
            from torch.autograd.profiler import record_function as mark
        with mark(f"{self.launch_range}_{which}"):
            pass

    def _sync(self) -> None:
        if self.kind != "cpu":
            import torch

            getattr(torch, self.kind).synchronize()

    def report(self, triton_kernels: Iterable[str], lifted: int = 0) -> dict[str, Any]:
        """The contract's "profile" dict (see the module docstring). `lifted`: how many tensors the dispatch
        recorder saw torch.tensor(data, device=...) lift onto a device (`_lift_conversions`)."""
        base = {"expected": _STATE["expected"], "device": self.kind}
        if self._events is None:
            return {**base, "available": False, "reason": self._error or "profiler did not run"}
        try:
            return {**base, **self._read(frozenset(triton_kernels), lifted)}
        except Exception as exc:  # noqa: BLE001 - an event API this torch lacks: unavailable, with the reason
            return {**base, "available": False, "reason": f"profile could not be read: {exc!r}"[:300]}

    def _read(self, triton_kernels: frozenset[str], lifted: int) -> dict[str, Any]:
        names = {e.name() for e in self._events or ()}
        lost = [w for w in ("begin", "end") if f"{self.launch_range}_{w}" not in names]
        if lost:
            return {"available": False,
                    "reason": f"the session was stopped or restarted during the call (its {' and '.join(lost)} mark lost)"}
        events = list(self._events or ())
        cpu_ops, in_launch, ranges, parts = _cpu_ops(events, self.launch_range, lifted)
        kernels, call_stream, memcpy = _device_activity(events, triton_kernels)
        return {"available": True, "reason": "", "cpu_ops": dict(cpu_ops), "cpu_ops_in_launch": dict(in_launch),
                "cpu_op_parts": parts, "op_schemas": _schemas([*cpu_ops, *in_launch]), "launch_ranges": ranges,
                "kernels": kernels, "call_stream": call_stream, "memcpy": memcpy}


_Op = tuple[str, int, int, int]  # name, thread, start ns, end ns
_MAX_SCHEMAS = 64  # ops outside aten whose schemas are sent, per call


def _schemas(names: list[str]) -> dict[str, list[str]]:
    """The registered schemas of each op outside aten among `names` ("ns::name[.overload]"), as text."""
    import torch

    out: dict[str, list[str]] = {}
    for name in sorted({n for n in names if not n.startswith("aten::")})[:_MAX_SCHEMAS]:
        try:
            out[name] = [str(s) for s in torch._C._jit_get_schemas_for_operator(name.split(".", 1)[0])][:16]
        except RuntimeError:  # not an operator this process knows
            continue
    return out


def _cpu_ops(events: list[Any], launch_range: str, lifted: int = 0
             ) -> tuple[Counter[str], Counter[str], int, dict[str, list[list[str]]]]:
    """Dispatcher ops by "ns::name.overload", split by whether a launch range on the same thread encloses them;
    the launch ranges; each op name's distinct sets of direct children. Up to `lifted` conversions that
    torch.tensor ran below the Python key are left out (`_lift_conversions`)."""
    from torch.autograd import DeviceType

    ranges: dict[int, list[tuple[int, int]]] = {}
    host: dict[int, list[tuple[int, int]]] = {}  # the launch's host code (a grid callable, a pre-run hook)
    ops: list[_Op] = []
    for e in events:
        if e.device_type() != DeviceType.CPU:
            continue
        name = e.name()
        if name in (launch_range, launch_range + HOST_CODE):
            (ranges if name == launch_range else host).setdefault(e.start_thread_id(), []).append(
                (e.start_ns(), e.end_ns()))
        elif _OP_NAME.fullmatch(name) and not _annotation(e):  # every namespace (mkldnn::, fbgemm::);
            # a candidate's own record_function("ns::name") range is an annotation, its ops are recorded beneath it
            overload = e.overload_name() if hasattr(e, "overload_name") else ""
            ops.append((f"{name}.{overload}" if overload else name, e.start_thread_id(), e.start_ns(), e.end_ns()))
    drop = _lift_conversions(ops, lifted)
    ops = [op for i, op in enumerate(ops) if i not in drop]
    outside: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    for name, tid, start, end in ops:
        enclosed = any(s <= start and end <= f for s, f in ranges.get(tid, ())) \
            and not any(s <= start and end <= f for s, f in host.get(tid, ()))  # host code is the call's own
        (inside if enclosed else outside)[name] += 1
    return outside, inside, sum(len(v) for v in ranges.values()), _parts(ops, ranges)


_CONVERSIONS = frozenset({"aten::to", "aten::_to_copy"})


def _lift_conversions(ops: list[_Op], limit: int) -> set[int]:
    """The ops of the host-side conversions that torch.tensor(data, device=...) runs below the Python key: the
    aten::to right before each aten::lift_fresh among the ops beside it (the same enclosing op, or none, on the
    same thread), with everything beneath it; at most `limit` of them, the number of lifts onto a device the
    dispatch recorder saw (it sees the lift_fresh, not the conversion). The conversion copies only the data the
    lift makes, which the recorder counts as host-made; a conversion anywhere else is still counted (FlagGems'
    full with a float64 fill value: torch_fallback on an H100 in session 30)."""
    drop: set[int] = set()
    taken = 0
    for idx, nested in _nesting(ops) if limit else ():
        last: dict[int, int] = {}  # the enclosing op (-1: none) -> its last op seen
        for i, parent in nested:
            prev = last.get(parent)
            if (taken < limit and prev is not None and ops[i][0].split(".")[0] == "aten::lift_fresh"
                    and ops[prev][0].split(".")[0] in _CONVERSIONS):
                start, end = ops[prev][2], ops[prev][3]
                drop.update(j for j in idx if start <= ops[j][2] and ops[j][3] <= end)
                taken += 1
            last[parent] = i
    return drop


def _nesting(ops: list[_Op]) -> Iterator[tuple[list[int], list[tuple[int, int]]]]:
    """Per thread: its ops' indices, and each index in start order with the op directly enclosing it (nesting by
    time; -1: none). An enclosing op comes before its parts."""
    by_thread: dict[int, list[int]] = {}
    for i, op in enumerate(ops):
        by_thread.setdefault(op[1], []).append(i)
    for idx in by_thread.values():
        stack: list[int] = []
        nested = []
        for i in sorted(idx, key=lambda i: (ops[i][2], -ops[i][3], i)):
            while stack and ops[stack[-1]][3] < ops[i][3]:
                stack.pop()
            nested.append((i, stack[-1] if stack else -1))
            stack.append(i)
        yield idx, nested


def _annotation(event: Any) -> bool:
    """A range the candidate opened itself (record_function("triton::rms_norm")): no op, whatever its name."""
    is_annotation = getattr(event, "is_user_annotation", None)
    return bool(is_annotation()) if callable(is_annotation) else False


def _parts(ops: list[_Op], ranges: dict[int, list[tuple[int, int]]]) -> dict[str, list[list[str]]]:
    """For each op name, every distinct set of ops recorded directly beneath one call of it (nesting by time on
    one thread): a composite op's parts, so the judge can tell a decomposition from native work under its name.
    A Triton launch range beneath a call counts as a part (LAUNCH_PART)."""
    children: dict[int, set[str]] = {i: set() for i in range(len(ops))}
    for i, (_, tid, start, end) in enumerate(ops):
        if any(start <= s and f <= end for s, f in ranges.get(tid, ())):
            children[i].add(LAUNCH_PART)
    for _, nested in _nesting(ops):
        for i, parent in nested:
            if parent >= 0:
                children[parent].add(ops[i][0])
    seen: dict[str, set[tuple[str, ...]]] = {}
    for i, op in enumerate(ops):
        seen.setdefault(op[0], set()).add(tuple(sorted(children[i])))
    return {name: [list(s) for s in sorted(sets)] for name, sets in seen.items()}


def _metadata(event: Any) -> dict[str, Any]:
    text = event.metadata_json() if hasattr(event, "metadata_json") else ""
    try:
        parsed = json.loads("{" + text + "}") if text else {}
    except ValueError:  # Kineto's fragment is not always valid JSON: pick the one number needed
        m = re.search(r'"bytes":\s*(\d+)', text)
        parsed = {"bytes": int(m.group(1))} if m else {}
    return parsed if isinstance(parsed, dict) else {}


def library_of(name: str) -> str:
    """Which library a (non-Triton) device kernel belongs to, by its name; 'other' when unknown."""
    low = name.lower()
    return next((lib for key, lib in _LIBRARIES if key in low), "other")


def _device_activity(events: list[Any], triton_kernels: frozenset[str]
                     ) -> tuple[list[dict[str, Any]], int | None, list[dict[str, Any]]]:
    """Kernels by (name, stream) with origin, the call's stream (the first marker's), memcpys."""
    from torch.autograd import DeviceType

    device = sorted((e for e in events if e.device_type() != DeviceType.CPU), key=lambda e: e.start_ns())
    kernels = [e for e in device if _kind(e) == "kernel"]
    markers = [e for e in kernels if _MARKER in e.name() and "::" in e.name()]  # never a Triton name
    call_stream = markers[0].device_resource_id() if markers else None
    ours = {id(markers[0]), id(markers[-1])} if markers else set()
    table: dict[tuple[str, int], dict[str, Any]] = {}
    for e in kernels:
        if id(e) in ours:
            continue
        name, stream = e.name(), e.device_resource_id()
        row = table.setdefault((name, stream), _kernel_row(name, stream, triton_kernels))
        row["count"] += 1
        row["us"] += e.duration_ns() / 1000.0
    memcpy = []
    for e in device:
        m = _MEMCPY_KIND.search(e.name()) if _kind(e) == "memcpy" else None
        if m is not None:
            memcpy.append({"kind": m.group(1), "bytes": int(_metadata(e).get("bytes", 0) or 0)})
    return list(table.values()), call_stream, memcpy


def _kind(event: Any) -> str:
    """'kernel', 'memcpy', 'memset' or 'other' (device-side annotations, syncs) for a device event."""
    activity = event.activity_type() if hasattr(event, "activity_type") else None  # torch 2.12 on
    if activity is not None:
        return {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}.get(activity, "other")
    # Before: device records are kernels (named by their symbol), copies, sets, and the annotations' mirrors.
    if event.is_user_annotation():
        return "other"
    name = event.name()
    return "memcpy" if name.startswith("Memcpy") else "memset" if name.startswith("Memset") else "kernel"


def _kernel_row(name: str, stream: int, triton_kernels: frozenset[str]) -> dict[str, Any]:
    triton = name in triton_kernels and name.isidentifier()  # Triton names kernels after Python functions
    return {"name": name, "stream": stream, "origin": "triton" if triton else "library",
            "library": "triton" if triton else library_of(name), "count": 0, "us": 0.0}


def warm_up(device: str) -> None:
    """Run one session before the candidate is imported: the profiler's own threads start now (part of the
    thread baseline), and a later failure can be told from a profiler that never worked here."""
    try:
        for _ in range(2):  # a second session starts whatever the profiler starts only when restarted
            with Session(device, "kgb_warm_up") as s:
                import torch

                torch.ones(4).add_(1)
            rep = s.report(())
    except Exception as exc:  # noqa: BLE001 - no profiler here: calls report it unavailable, not expected
        _STATE.update(expected=False, reason=f"profiler warm-up failed: {exc!r}"[:300])
        return
    ok = rep["available"] and (s.kind == "cpu" or rep["call_stream"] is not None)
    _STATE.update(expected=bool(ok), reason="" if ok else f"profiler warm-up recorded nothing: {rep.get('reason')}")

