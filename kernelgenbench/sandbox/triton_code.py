"""Which functions are triton's own, by the identity of their code objects, taken before the candidate runs.

A function's `__module__`, its `co_filename` and the module that holds it can all be set by the candidate
(`f.__module__ = "triton.language"; tl.f = f`, `code.replace(co_filename=...)`, `FunctionType(code,
vars(tl))`). What it cannot make is a code object that *is* one of triton's: those exist once, compiled from
triton's files when its modules were imported. So the worker takes, before it imports the candidate, every
code object reachable from the functions and classes of every triton module then loaded (nested code
included: the interpreter's lambdas and patches are made from them at launch time), and the dicts of those
modules. A function is triton's when its code is one of those and its globals are one of those modules' (the
worker's own sandbox modules count with them: its patches of triton's classes are its code).
Triton modules first imported later (a backend's extras) are judged by where their code was written instead,
the weaker test, and the worker imports the usual ones before taking the set.
"""

from __future__ import annotations

import enum
import functools
import importlib
import os
import sys
from types import CodeType, FunctionType
from typing import Any

from kernelgenbench.sandbox.held_code import cell_full

# Imported before the set is taken: modules triton loads lazily that kernels and the interpreter use.
_EAGER = ("triton.language", "triton.language.extra", "triton.language.math", "triton.runtime.interpreter",
          "triton.tools.tensor_descriptor", "triton.language.extra.cuda", "triton.language.extra.libdevice")


@functools.cache
def default_triton() -> TritonCode:
    """triton's code as loaded at the first call (the worker makes that call before the candidate's import)."""
    return TritonCode()


class TritonCode:
    """The code objects and module dicts of triton as loaded now (build it before the candidate's import)."""

    def __init__(self) -> None:
        for name in _EAGER:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - a module this triton lacks (or a backend absent here)
                continue
        # the worker's own modules too: its patches of triton's classes (sandbox/interpreted_kernels.py) live there
        modules = [m for n, m in list(sys.modules.items())
                   if m is not None and (n.split(".")[0] == "triton" or n.startswith("kernelgenbench.sandbox"))]
        self._dicts = frozenset(id(vars(m)) for m in modules)
        self._held = [vars(m) for m in modules]  # kept alive: the ids above stay theirs
        codes: list[CodeType] = []
        for m in modules:
            for v in list(vars(m).values()):
                codes.extend(_codes_of(v))
        self._codes_kept = _nested(codes)
        self._codes = frozenset(map(id, self._codes_kept))
        self._root = os.path.dirname(sys.modules["triton"].__file__ or "") + os.sep if "triton" in sys.modules else ""
        # triton's enums (tl.PropagateNan), each with its namespace as it is now: a kernel may name them and their
        # members, but not once the candidate added to a class (an attribute a kernel reads off a member)
        self._enums = {v: _namespace(v) for m in modules for v in list(vars(m).values()) if isinstance(v, enum.EnumMeta)
                       and str(getattr(v, "__module__", "")).startswith("triton")}

    def function(self, fn: Any) -> bool:
        """`fn` is a function of triton's own: its code one of triton's and its globals a triton module's (for
        a module loaded after the set was taken: its code written under triton's folder)."""
        if not isinstance(fn, FunctionType):
            return False
        code, glob = FunctionType.__dict__["__code__"].__get__(fn), FunctionType.__dict__["__globals__"].__get__(fn)
        if id(code) in self._codes and id(glob) in self._dicts:
            return True
        return id(glob) not in self._dicts and self._late_module(glob) and code.co_filename.startswith(self._root)

    def _late_module(self, glob: dict) -> bool:
        """A triton module first imported after the set was taken, whose dict `glob` is."""
        name = glob.get("__name__")
        mod = sys.modules.get(name) if isinstance(name, str) else None
        return bool(self._root) and mod is not None and name.split(".")[0] == "triton" and vars(mod) is glob

    def enum(self, cls: Any) -> bool:
        """`cls` is one of triton's enums, its namespace as it was when the set was taken."""
        was = self._enums.get(cls) if isinstance(cls, enum.EnumMeta) else None
        return was is not None and _namespace(cls) == was

    def module_dict(self, glob: Any) -> bool:
        """`glob` is the dict of a triton module loaded when the set was taken."""
        return id(glob) in self._dicts


def _namespace(cls: type) -> tuple[tuple[str, int], ...]:
    """A class's own names and the identity of what each holds."""
    return tuple((k, id(v)) for k, v in type.__dict__["__dict__"].__get__(cls).items())


def _codes_of(value: Any, depth: int = 0) -> list[CodeType]:
    """The code objects of a function, a wrapper's wrapped function, a JIT function's `fn`, a class's methods."""
    if depth > 3:
        return []
    if isinstance(value, FunctionType):
        out = [value.__code__]
        inner = value.__dict__.get("__wrapped__")
        # and the functions it closes over: the worker's patch of a triton method holds triton's original
        cells = [c.cell_contents for c in value.__closure__ or () if cell_full(c)]
        return out + [c for f in (inner, *cells) if isinstance(f, FunctionType) for c in _codes_of(f, depth + 1)]
    if isinstance(value, (staticmethod, classmethod)):
        return _codes_of(value.__func__, depth + 1)
    if isinstance(value, property):
        return [c for f in (value.fget, value.fset, value.fdel) if f is not None for c in _codes_of(f, depth + 1)]
    if isinstance(value, functools.partial):
        return _codes_of(value.func, depth + 1)
    if isinstance(value, type):
        return [c for v in list(type.__dict__["__dict__"].__get__(value).values()) for c in _codes_of(v, depth + 1)]
    inner = instance_fn(value)
    return _codes_of(inner, depth + 1) if inner is not None else []


def instance_fn(value: Any) -> Any:
    """A JIT function's (or any triton callable object's) Python function, read from its instance dict."""
    try:
        state = object.__getattribute__(value, "__dict__")
    except AttributeError:
        return None
    fn = state.get("fn") if type(state) is dict else None
    return fn if isinstance(fn, FunctionType) else None


def _nested(codes: list[CodeType]) -> list[CodeType]:
    """`codes` and every code object nested in their constants (comprehensions, lambdas, inner functions)."""
    out, seen, stack = [], set(), list(codes)
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        out.append(c)
        stack.extend(k for k in c.co_consts if isinstance(k, CodeType))
    return out
