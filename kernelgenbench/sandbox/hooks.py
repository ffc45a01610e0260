"""Interpreter hooks that would run a candidate's code outside its call, closed at every call's edges.

Python runs code it was handed at moments the candidate does not choose but can arrange: a signal handler
(an interval timer) between any two bytecodes, a gc callback or a `__del__` in a reference cycle at the next
collection, an audit hook at every audited event (the worker lists /proc and opens files), a trace, profile
or sys.monitoring callback at every call, an exception hook. Run while
the worker packs the outputs (or between drawing the inputs and the call), such code computes after the
recorders stopped, or before they start, and nothing sees it.

So, in the worker only (`install`, before the candidate is imported): audit hooks are refused outright (a hook
that raises RuntimeError on "sys.addaudithook" keeps every later hook out, CPython's documented behaviour:
`sys.addaudithook` then returns as if it had added it). A refused hook never runs, so trying is no evidence:
libraries add one on CPython 3.12 (filelock 3.32's module body does, to make its locks fork-safe; Liger's
first call imports it lazily), and a candidate's hook is inert. Switching record_function off is refused
too (the profiler then sees no op: the device-activity recorder blinded; the function is replaced where
torch exports it, and only torch's distributed tests call it);
the garbage collector runs only inside the candidate's own call and import (`open`); and at each call's
end, still under the recorders, and before each call (`close`) whatever the candidate installed is taken out
again and named. Taking the hooks out is the defence; the names are evidence for the report.

Hooks the standard library documents for programs to replace (`warnings.showwarning`, logging's record
factory, ...) are the candidate's to set: honest libraries set them at import (`logging.captureWarnings`).
They stay the candidate's while its code runs, and the standard library's own while the worker's runs
(`open` puts the candidate's back, `close` takes them out unmarked): a warning torch raises while the worker
packs the outputs would otherwise run the candidate's hook there.

Import hooks (sys.meta_path) are left alone: the worker imports nothing new around a call, and libraries
add them while they load lazily during a first call (six's meta-path importer, under pandas).
"""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from typing import Any

from kernelgenbench.sandbox.stdlib_code import note_exec

_TIMERS = tuple(getattr(signal, n) for n in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF") if hasattr(signal, n))
_SYS_HOOKS = ("excepthook", "unraisablehook")
# (module, owner attribute or "", name): the documented hooks, swapped at the call's edges, never marked.
_STD_HOOKS = (("warnings", "", "showwarning"), ("warnings", "", "formatwarning"), ("logging", "", "_logRecordFactory"),
              ("logging", "", "_loggerClass"), ("logging", "Formatter", "converter"))


def _handlers() -> dict[int, Any]:
    out = {}
    for s in signal.valid_signals():
        try:
            out[int(s)] = signal.getsignal(s)
        except (OSError, ValueError):  # a signal Python cannot read (SIGKILL's slot on some systems)
            continue
    return out


def _std_slots() -> tuple[tuple[Any, str], ...]:
    """(owner, attribute) of each documented hook whose module the worker has loaded."""
    out = []
    for modname, cls, name in _STD_HOOKS:
        owner = sys.modules.get(modname)
        owner = getattr(owner, cls, None) if cls and owner is not None else owner
        if owner is not None and hasattr(owner, name):
            out.append((owner, name))
    return tuple(out)


def _tools() -> dict[int, str | None]:
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12 on
    return {} if monitoring is None else {i: monitoring.get_tool(i) for i in range(6)}


class InterpreterHooks:
    """The interpreter's hook slots as the worker left them, and the means to put them back."""

    def __init__(self) -> None:
        self.audit_refused = 0  # audit hooks the candidate's code (or a library it uses) tried to add
        self.record_refused = 0  # record_function switch-offs the candidate tried
        self._handlers = _handlers()
        self._gc_callbacks = list(gc.callbacks)
        self._trace = (sys.gettrace(), sys.getprofile(), threading.gettrace(), threading.getprofile())
        self._sys = {n: getattr(sys, n) for n in _SYS_HOOKS}
        self._thread_hook = threading.excepthook
        self._tools = _tools()
        self._reported = 0  # record_function switch-offs already named
        self._std = _std_slots()
        self._std_own = self._held_std()  # the worker's values
        self._std_candidate = self._std_own  # the candidate's, put back whenever its code runs
        self._streams = (sys.stdout, sys.stderr)  # the worker's (its log file behind them)
        self._catch, self._ignore = warnings.catch_warnings, warnings.simplefilter
        numpy = sys.modules.get("numpy")  # the interpreter's arithmetic: its error callback (seterrcall) off too
        errstate = getattr(numpy, "errstate", None)
        self._np_quiet = (lambda: errstate(all="ignore")) if errstate is not None else contextlib.nullcontext
        self._window_marks: list[str] = []

    def install(self) -> None:
        """Refuse audit hooks and record_function switch-offs from now on, stop the collector (worker only)."""
        sys.addaudithook(self._audit)
        gc.disable()
        self._keep_record_function()

    def _keep_record_function(self) -> None:
        import torch.autograd
        from torch._C import _autograd

        real = _autograd._enable_record_function

        def _enable_record_function(enabled: bool) -> None:
            if not enabled:
                self.record_refused += 1
                return
            real(enabled)

        for module in (_autograd, torch.autograd):
            if getattr(module, "_enable_record_function", None) is real:
                module._enable_record_function = _enable_record_function

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "exec" and args:  # the text dataclasses and namedtuple compile (sandbox/stdlib_code.py)
            note_exec(args[0], sys._getframe(1))
        elif event == "sys.addaudithook":
            self.audit_refused += 1
            raise RuntimeError("audit hooks are refused in the evaluator's worker")

    def open(self) -> None:
        """The candidate's code runs now: the collector may run (its `__del__`s then run under the recorders), and
        the documented hooks it set are its own again."""
        self._put_std(self._std_candidate)
        gc.enable()

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """An interpreted launch's window, where no code of the candidate's may run: the recorders are paused there
        and every write is the launch's (red team 25 computed in a `print` hook, `sys.stdout.write`, and in a
        `warnings.showwarning` numpy's warnings reached). The streams a kernel's print writes to, the warning
        machinery and the documented hooks are the worker's for the launch; a trace, profile or monitoring
        function, which would run at every line of the kernel, is taken out and named. The collector stays on:
        switched off here, a correct kernel's host-made verdict turned flaky (a reinterpreted Parameter, 1 run
        in 3); a `__del__` a collection runs mid-launch is named by the launch watch (sandbox/launch_watch.py)."""
        trace = (sys.gettrace(), sys.getprofile())
        if any(a is not b for a, b in zip(trace, self._trace[:2], strict=True)) or _tools() != self._tools:
            self._window_marks.append("a trace, profile or monitoring function was active during a Triton launch")
        held = self._held_std()
        streams = (sys.stdout, sys.stderr)
        self._put_std(self._std_own)
        sys.settrace(self._trace[0])
        sys.setprofile(self._trace[1])
        sys.stdout, sys.stderr = self._streams
        try:
            with self._catch(), self._np_quiet():
                self._ignore("ignore")
                yield
        finally:
            sys.stdout, sys.stderr = streams
            self._put_std(held)
            sys.settrace(trace[0])
            sys.setprofile(trace[1])

    def close(self) -> list[str]:
        """Stop the collector, put every hook slot back as it was, and name what the candidate had changed."""
        gc.disable()
        self._std_candidate = self._held_std()
        self._put_std(self._std_own)
        marks = self._signals() + self._callbacks() + self._tracers() + self._window_marks[:1]
        self._window_marks.clear()
        record = self.record_refused - self._reported
        if record:
            marks.append(f"the candidate tried to switch record_function off ({record} time(s)): refused")
        self._reported = self.record_refused
        return marks

    def _held_std(self) -> tuple[Any, ...]:
        return tuple(getattr(owner, name) for owner, name in self._std)

    def _put_std(self, values: tuple[Any, ...]) -> None:
        for (owner, name), value in zip(self._std, values, strict=True):
            setattr(owner, name, value)

    def _signals(self) -> list[str]:
        marks = []
        for timer in _TIMERS:
            if signal.getitimer(timer) != (0.0, 0.0):
                signal.setitimer(timer, 0)
                marks.append("an interval timer was left armed (its signal would run code outside the call)")
        for s, handler in _handlers().items():
            if handler is not self._handlers.get(s):
                try:
                    signal.signal(s, self._handlers[s])
                except (OSError, ValueError, KeyError):  # not the main thread, or a signal Python cannot set
                    pass
                marks.append(f"a handler for {signal.Signals(s).name} was installed")
        return marks

    def _callbacks(self) -> list[str]:
        now = gc.callbacks
        if len(now) == len(self._gc_callbacks) and all(a is b for a, b in zip(now, self._gc_callbacks, strict=True)):
            return []
        gc.callbacks[:] = self._gc_callbacks
        return ["a gc callback was installed (it runs at the next collection, outside the call)"]

    def _tracers(self) -> list[str]:
        marks = []
        now = (sys.gettrace(), sys.getprofile(), threading.gettrace(), threading.getprofile())
        if any(a is not b for a, b in zip(now, self._trace, strict=True)):
            sys.settrace(self._trace[0])
            sys.setprofile(self._trace[1])
            threading.settrace(self._trace[2])
            threading.setprofile(self._trace[3])
            marks.append("a trace or profile function was installed")
        for name, hook in self._sys.items():
            if getattr(sys, name) is not hook:
                setattr(sys, name, hook)
                marks.append(f"sys.{name} was replaced")
        if threading.excepthook is not self._thread_hook:
            threading.excepthook = self._thread_hook
            marks.append("threading.excepthook was replaced")
        for i, owner in _tools().items():
            if owner != self._tools.get(i):
                sys.monitoring.set_events(i, 0)
                sys.monitoring.free_tool_id(i)
                marks.append(f"a sys.monitoring tool ({owner}) was registered")
        return marks
