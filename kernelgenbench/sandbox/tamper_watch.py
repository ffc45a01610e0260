"""The tamper watch: what the candidate must leave as it found it, snapshot before its import and compared after
each call (the evaluator's functions, the namespaces the worker reaches by attribute, the standard library).

It runs in the candidate's process, so it only reports marks; the worker sends them and the evaluator decides.
"""

from __future__ import annotations

import json
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

_TYPE_DICT = type.__dict__["__dict__"].__get__

# The evaluator's own modules: their functions and classes are watched, and their sys.modules entries must
# stay the module objects the worker bound before the candidate was imported.
_GUARDED_MODULES = ("kernelgenbench.sandbox.worker", "kernelgenbench.sandbox.dispatch",
                    "kernelgenbench.evaluator.transfer", "kernelgenbench.sandbox.launches",
                    "kernelgenbench.evaluator.timing", "kernelgenbench.evaluator.inputs",
                    "kernelgenbench.sandbox.activity", "kernelgenbench.sandbox.threads",
                    "kernelgenbench.sandbox.protocol", "kernelgenbench.sandbox.hooks", "kernelgenbench.sandbox.ledger",
                    "kernelgenbench.sandbox.kernel_rules", "kernelgenbench.sandbox.launch_memory",
                    "kernelgenbench.sandbox.interpreted_kernels", "kernelgenbench.sandbox.tamper_watch",
                    "kernelgenbench.sandbox.interpreter_fixes",
                    "torch.utils._python_dispatch")


# The judging side's package: everything the worker uses from it is imported before the candidate (_bind), so a
# module of it that appears later was imported by the candidate. (Sandbox modules may still load lazily.)
_EVALUATOR_PREFIXES = ("kernelgenbench.evaluator.",)
# Modules the worker's own helpers still import by name (`import torch` inside a function).
_CORE_MODULES = ("torch", "triton", "json", "time", "threading", "multiprocessing.connection", "triton.runtime.jit",
                 "triton.runtime.interpreter", "torch.profiler")


def watched_functions() -> dict[str, tuple[Any, str]]:
    """Functions the candidate must leave alone: comparison, timing, transfer, and the evaluator's own."""
    import importlib
    import multiprocessing.connection as mpc
    import time as time_mod

    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    pairs: dict[str, tuple[Any, str]] = {}
    for owner, names, label in [
        (torch, ["allclose", "isclose", "equal", "save", "load", "empty", "isnan", "isinf", "where"], "torch"),
        (torch.testing, ["assert_close"], "torch.testing"),
        (torch.Tensor, ["cpu", "to", "clone", "copy_", "untyped_storage", "data_ptr", "set_", "as_strided",
                        "__eq__", "__ne__", "abs", "sum", "any", "all"], "torch.Tensor"),
        (torch.cuda, ["synchronize", "current_stream", "Event"], "torch.cuda"),
        (torch.cuda.Event, ["elapsed_time", "record", "synchronize", "query"], "torch.cuda.Event"),
        (torch.profiler, ["profile"], "torch.profiler"),
        (TorchDispatchMode, ["__enter__", "__exit__", "__init__"], "TorchDispatchMode"),
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
    for modname in _GUARDED_MODULES:
        try:
            pairs.update(_module_watched(modname, importlib.import_module(modname)))
        except ImportError:
            continue
    try:
        from triton.runtime.jit import JITFunction

        pairs["triton.JITFunction.run"] = (JITFunction, "run")
        from triton.runtime.interpreter import InterpretedFunction

        pairs["triton.InterpretedFunction.run"] = (InterpretedFunction, "run")
    except ImportError:
        pass
    import builtins

    for n in ("isinstance", "type", "len", "getattr", "id", "hash"):
        pairs[f"builtins.{n}"] = (builtins, n)
    return pairs


# Namespaces whose functions the worker reaches by attribute between calls (drawing and fingerprinting inputs,
# packing outputs, timing) or that the interpreter computes with: each function, class or module in them must
# stay the one seen before the import, or the candidate's code runs there, out of every call's recorders
# (`torch.randn` replaced, `hashlib.sha256` forging fingerprints, `torch.frombuffer` forging packed bytes, an
# interpreter builder's `create_fadd` doing a decoy kernel's work). triton.language is left out: the
# interpreter itself rebinds its members at the first launch.
_NAMESPACES = ("torch", "torch.nn.functional", "torch.random", "torch.cuda", "torch.testing", "torch.storage", "numpy",
               "triton.runtime.interpreter", "triton.runtime.jit", "triton.runtime.autotuner")
# Classes whose whole dict is watched (an added attribute shadows an inherited one).
_CLASSES = (("triton.runtime.interpreter", "InterpreterBuilder"), ("triton.runtime.interpreter", "TensorHandle"))
# The standard library is watched whole: the worker's code between calls reaches it through module globals
# looked up at each use (`json.dumps` reads `json._default_encoder`, `dataclasses.replace` reads
# `_is_dataclass_instance`, `Connection.recv` reads `ForkingPickler.loads`, `base64` reads `binascii`), so a
# list of the modules it uses is never complete (red team 17 rewrote reports through the first two). Every
# module of it loaded before the import keeps each global that is no plain scalar (scalars are flags and
# lazily set defaults its own code rebinds; a rebound scalar runs no code), and each class defined there keeps
# its attributes that are no scalars, with no attribute added over an inherited one. sys is left out (its
# path, modules and hooks change by design: hooks are watched apart).
_STD_SKIP = frozenset({"sys", "__main__"})
_SCALARS = (type(None), bool, int, float, complex, str, bytes)


def _plain(value: Any, depth: int = 0) -> bool:
    """A scalar, or a tuple or frozenset of them: data no code runs through (`time.tzset()` rebinds `time.tzname`,
    a tuple of two strings; Liger's import on a device calls it)."""
    if isinstance(value, _SCALARS):
        return True
    return type(value) in (tuple, frozenset) and depth < 2 and all(_plain(v, depth + 1) for v in value)

# Hooks the standard library documents for programs to replace, which no code of the worker calls
# (`logging.captureWarnings` sets warnings.showwarning; torch sets warnings.formatwarning; vLLM-style logging
# setup calls setLogRecordFactory and setLoggerClass).
_STD_HOOKS = frozenset({("warnings", "showwarning"), ("warnings", "formatwarning"),
                        ("logging.Formatter", "converter"), ("logging", "_logRecordFactory"),
                        ("logging", "_loggerClass")})
# Attributes Python adds to a class after it is made: copyreg caches a class's slot names on it when pickling.
_CLASS_CACHES = frozenset({"__slotnames__"})


def _namespaces() -> tuple[tuple[str, Any, tuple[tuple[str, Any], ...], frozenset[str] | None], ...]:
    """(label, live mapping, its entries now, and for a class the inherited names an added attribute would
    shadow) for each watched namespace. An attribute added under a new name changes no code the worker runs
    (transformers adds `logging.Logger.warning_once`); one that shadows an inherited method does
    (`Connection.send_bytes` is `_ConnectionBase`'s)."""
    import importlib

    out = []
    for modname in _NAMESPACES:
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        d = vars(mod)
        out.append((modname, d, tuple((k, v) for k, v in d.items()
                                      if callable(v) or isinstance(v, types.ModuleType)), None))
    classes = [getattr(sys.modules.get(modname), name, None) for modname, name in _CLASSES]
    for modname, mod in tuple(sys.modules.items()):
        if modname.partition(".")[0] not in sys.stdlib_module_names or modname in _STD_SKIP \
                or not isinstance(mod, types.ModuleType):
            continue
        d = vars(mod)
        out.append((modname, d, tuple((k, v) for k, v in tuple(d.items())
                                      if not _plain(v) and (modname, k) not in _STD_HOOKS), None))
        classes += [v for v in tuple(d.values()) if isinstance(v, type) and v.__dict__.get("__module__") == modname]
    for cls in dict.fromkeys(c for c in classes if isinstance(c, type)):
        proxy = _TYPE_DICT(cls)
        # inherited and not its own now: what an added attribute would shadow
        shadows = frozenset(k for base in cls.__mro__[1:] for k in _TYPE_DICT(base)) - frozenset(proxy)
        label = f"{cls.__module__}.{cls.__qualname__}"
        # scalars as in modules: a counter a class keeps (importlib's _NamespacePath._epoch) runs no code
        out.append((label, proxy, tuple((k, v) for k, v in proxy.items() if k not in _CLASS_CACHES
                                        and not _plain(v) and (label, k) not in _STD_HOOKS),
                    shadows - _CLASS_CACHES))
    return tuple(out)


# Module data that changes by design while candidates run: the kernels Triton loaded, by name and count
# (launches.py).
_MUTABLE_DATA = frozenset({"_LOADED", "_LOADS", "_LOADS_SEEN"})


def _is_data(owner: Any, name: str, value: Any) -> bool:
    """A data global of one of the evaluator's own modules (torch's module flags change as modes enter and exit)."""
    return (isinstance(owner, types.ModuleType) and owner.__name__.startswith("kernelgenbench.")
            and not (callable(value) or isinstance(value, types.ModuleType) or name.startswith("__")
                     or name in _MUTABLE_DATA))


def _ids(value: Any) -> tuple[int, ...]:
    """What a container holds, by identity (a rewritten entry of a module's dict, list or set of constants)."""
    if type(value) is dict:
        return tuple(i for k, v in value.items() for i in (id(k), id(v)))
    if type(value) in (list, tuple):
        return tuple(map(id, value))
    if type(value) in (set, frozenset):
        return tuple(sorted(map(id, value)))
    return ()


def _module_watched(modname: str, mod: types.ModuleType) -> dict[str, tuple[Any, str]]:
    """A guarded module's functions and classes (their methods too) and, for the evaluator's own, its data and
    every name it imported (a module, `dataclasses.replace`): the worker calls them by their global names."""
    pairs: dict[str, tuple[Any, str]] = {}
    own = modname.startswith("kernelgenbench.")
    for n, v in vars(mod).items():
        if _is_data(mod, n, v):  # constants and state the recorders read (a name set, a pattern, a flag)
            pairs[f"{modname}.{n}"] = (mod, n)
        elif own and not n.startswith("__") and (isinstance(v, types.ModuleType) or callable(v)) \
                and getattr(v, "__module__", None) != modname:
            pairs[f"{modname}.{n}"] = (mod, n)
        elif callable(v) and getattr(v, "__module__", None) == modname:
            pairs[f"{modname}.{n}"] = (mod, n)
            if isinstance(v, type):  # the recorders' and timing's methods too
                pairs.update({f"{modname}.{n}.{m}": (v, m) for m, f in vars(v).items()
                              if callable(f) or isinstance(f, (property, staticmethod, classmethod))})
    return pairs


class _Sentinel:
    pass


MISSING = _Sentinel()


def _state(value: Any) -> tuple[Any, ...]:
    """A watched value and what its behaviour hangs on: a function's code, defaults and closure (a replaced
    `__code__` keeps the function's identity), a wrapper's underlying function."""
    fn = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
    fn = fn.fget if isinstance(fn, property) else fn
    # A decorator's wrapper calls the function it wraps: that one's code is the behaviour too.
    inner = getattr(fn, "__wrapped__", None) if type(fn) is types.FunctionType else None
    return (value, getattr(fn, "__code__", None), getattr(fn, "__defaults__", None),
            getattr(fn, "__kwdefaults__", None), getattr(fn, "__closure__", None), inner,
            getattr(inner, "__code__", None))


def _snapshot(watched: dict[str, tuple[Any, str]]) -> dict[str, Any]:
    return {k: _state(owner.__dict__.get(n, MISSING) if isinstance(owner, type) else getattr(owner, n, MISSING))
            for k, (owner, n) in watched.items()}


def guard(watched: dict[str, tuple[Any, str]]) -> Callable[..., list[str]]:
    """The tampering check, bound now: the snapshot and the module objects live in its closure (the candidate
    cannot refresh them by name), and it calls nothing of the evaluator's that it looks up by name later (the
    builtins it relies on are watched).

    What remains: code that walks memory (gc, frames, closure cells) can reach and rewrite the closure, and a
    replacement that restores itself before this runs is not seen; the evaluator-side checks (the profiler's
    C++-level ops, values compared outside this process) and OS isolation are the real defence.
    """
    snapshot, state = _snapshot, _state
    snap = tuple(snapshot(watched).items())
    items = tuple((k, owner, n, isinstance(owner, type)) for k, (owner, n) in watched.items())
    modules = sys.modules
    bound = tuple((name, mod) for name, mod in modules.items()
                  if name.startswith("kernelgenbench.") or name in _GUARDED_MODULES or name in _CORE_MODULES)
    known = frozenset(modules)
    _getattr, _zip, _any, ids = getattr, zip, any, _ids
    held = tuple((k, owner, n, ids(_getattr(owner, n, None))) for k, (owner, n) in watched.items()
                 if _is_data(owner, n, _getattr(owner, n, None)))
    spaces = _namespaces()

    def tampered(skip: tuple[str, ...] = ()) -> list[str]:
        """Marks for what changed since the snapshot; `skip`: keys legitimately replaced right now."""
        marks = []
        for (k, owner, n, is_cls), (_, before) in _zip(items, snap):
            if k in skip:
                continue
            now = state(owner.__dict__.get(n, MISSING) if is_cls else _getattr(owner, n, MISSING))
            if _any(a is not b for a, b in _zip(now, before)):
                marks.append(f"{k} was replaced")
        marks += [f"{k} was rewritten" for k, owner, n, before in held if ids(_getattr(owner, n, None)) != before]
        marks += [f"sys.modules[{name!r}] was replaced" for name, mod in bound if modules.get(name) is not mod]
        for label, live, entries, shadows in spaces:
            changed = [k for k, v in entries if k not in skip and live.get(k, MISSING) is not v]
            if shadows:
                changed += [f"{k} (added over an inherited one)" for k in shadows if k in live]
            if changed:
                marks.append(f"{label}: {', '.join(map(str, changed[:6]))} replaced")
        # The evaluator's judging code never runs here: a candidate importing it means to patch it.
        marks += [f"the candidate imported the evaluator's module {name}" for name in tuple(modules)
                  if name.startswith(_EVALUATOR_PREFIXES) and name not in known]
        return marks

    del snapshot
    return tampered
