"""Where a class's code was written: whether using an instance can run any of the candidate's code.

A value is judged by its class's code, not by what the class says it is: a class can name itself
`TensorDescriptor`, claim `__module__ = "numpy"`, or subclass `int` and add a method the interpreter would run
inside a kernel. A class is free of the candidate's code when every method it and its bases define (properties'
accessors included) was written in the standard library's enum, collections, dataclasses, typing, types,
functools or abc modules (an enum member, a namedtuple, a dataclass, a generic) or, where asked, under one
package's folder (triton's), or is a C type's own.
"""

from __future__ import annotations

import functools
import os
import sys
from types import BuiltinFunctionType, CodeType, FunctionType, MethodDescriptorType, WrapperDescriptorType
from typing import Any

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (C types are not)
_C_METHODS = (WrapperDescriptorType, MethodDescriptorType)
_SANDBOX = os.path.dirname(os.path.abspath(__file__)) + os.sep  # the worker's own patches (of triton's classes)


def own_code_free(cls: type, root: str = "", depth: int = 0) -> bool:
    """Whether every method `cls` and its bases define is the standard library's (an enum member's, a namedtuple's)
    or, given `root`, a package's under that folder (triton's): a C type, or a class with none of the candidate's
    code. Checked by where the code was written, not by what the class says its module is; a function's closure,
    a class held as an attribute and a descriptor object are judged the same way."""
    if depth > _DEPTH:
        return False
    key, stamp = (id(cls), root), _stamp(cls)
    known = _FREE.get(key)
    if known is not None and known[0] is cls and known[1] == stamp:
        return known[2]
    _FREE[key] = (cls, stamp, True)  # while it is judged: a class that refers back to itself is judged once
    free = _judge(cls, root, depth)
    if _kept(cls):
        _FREE[key] = (cls, stamp, free)
    else:  # the candidate's class: judged anew each time (a partial re-pointed in place keeps every identity)
        del _FREE[key]
    return free


def implicit_code_free(cls: type) -> bool:
    """Whether the methods Python calls implicitly on an instance (its dunders: `__mul__`, `__index__`, `__eq__`)
    are all free of the candidate's code: a scalar subclass whose named methods (an enum's `parse`) run only
    where code names them, and a kernel's names are judged one by one (sandbox/kernel_rules.py)."""
    for state, generated in _heap_states(cls):
        for name, v in state.items():
            if not (isinstance(name, str) and name.startswith("__") and name.endswith("__")):
                continue
            if isinstance(v, type) or not all(_trusted_code(f, "", generated, 0) for f in _code_of(v)):
                return False
    return True


def _heap_states(cls: type) -> list[tuple[dict[str, Any], bool]]:
    """The namespaces of `cls` and its bases made by class statements (read with type's accessors, not the class's),
    each with whether its methods were generated (a namedtuple's and a dataclass's are made from "<string>")."""
    states = [type.__dict__["__dict__"].__get__(c) for c in type.__dict__["__mro__"].__get__(cls)
              if c.__flags__ & _HEAP_TYPE]
    return [(state, _names(state.get("_fields")) or _names(state.get("__dataclass_fields__"))) for state in states]


def _names(fields: Any) -> bool:
    """A namedtuple's `_fields` or a dataclass's `__dataclass_fields__` naming identifiers only (the generator puts
    the names into the text it compiles: `__annotations__` set by hand could put code there)."""
    names = fields if type(fields) is tuple else tuple(dict.keys(fields)) if type(fields) is dict else None
    return bool(names) and all(type(n) is str and n.isidentifier() for n in names)


# Code the standard library generated from text (a dataclass's __init__, a namedtuple's __new__), by id, each kept
# alive so that an id is never reused: what existed when the watch started (before the candidate is imported) and
# what dataclasses' and namedtuple's own code ran through exec since (the worker's audit hook, sandbox/hooks.py).
# A filename of "<string>" alone proves nothing: `code.replace(co_filename="<string>")` makes one.
_GENERATED: dict[int, Any] = {}


def watch_generated() -> None:
    """Count as generated the "<string>" code of every function alive now (before the candidate is imported)."""
    import gc

    for f in gc.get_objects():
        if type(f) is FunctionType and f.__code__.co_filename == "<string>":
            _note(f.__code__)


def note_exec(code: Any, caller: Any) -> None:
    """An exec (or eval) of `code` from the frame running `caller`: generated where dataclasses' or collections'
    own code ran it (by code identity, not by file name)."""
    if type(code) is CodeType and type(caller) is CodeType and caller.co_filename in _generators() \
            and id(caller) in _stdlib_codes():
        _note(code)


def generated_code(code: Any) -> bool:
    """`code` is one the standard library generated (see `_GENERATED`)."""
    return _GENERATED.get(id(code)) is code


def _note(code: CodeType) -> None:
    _GENERATED[id(code)] = code
    for c in code.co_consts:
        if type(c) is CodeType:
            _note(c)


@functools.cache
def _generators() -> frozenset[str]:
    import collections
    import dataclasses

    return frozenset({collections.__file__, dataclasses.__file__})


def _kept(cls: type) -> bool:
    """A class whose verdict may be kept: one of triton's (the deep classes of its blocks and JIT functions, met
    at every launch)."""
    return _in_triton_module(cls)


def _in_triton_module(cls: type) -> bool:
    """The class a triton module holds under the class's own name (read with type's accessors, not the class's)."""
    name = type.__dict__["__module__"].__get__(cls)
    qualname = type.__dict__["__qualname__"].__get__(cls)
    return isinstance(name, str) and name.startswith("triton.") and getattr(sys.modules.get(name), qualname, None) is cls


_DEPTH = 16
# verdicts by class identity (hashing a class may run its metaclass's code), kept while the class and its bases
# hold the same attributes (a method added later is judged)
_FREE: dict[tuple[int, str], tuple[type, tuple, bool]] = {}


def _stamp(cls: type) -> tuple:
    """What the class and its bases hold, by identity."""
    return tuple(tuple(map(id, state.values())) for state, _ in _heap_states(cls))


def _judge(cls: type, root: str, depth: int) -> bool:
    for state, generated in _heap_states(cls):
        for v in state.values():
            if isinstance(v, type) and v not in type.__dict__["__mro__"].__get__(cls):
                if not own_code_free(v, root, depth + 1):  # a class as an attribute: called, it runs its code
                    return False
                continue
            if not all(_trusted_code(f, root, generated, depth) for f in _code_of(v)):
                return False
    return True


def _trusted_code(f: Any, root: str, generated: bool, depth: int) -> bool:
    """A function written in a trusted place, and all code it holds (closure cells, its own __dict__, what those
    hold in containers); a C method; a descriptor or callable object whose own class is free of the candidate's
    code, and all code it holds (a partial's function, arguments and keywords)."""
    if depth > _DEPTH:
        return False
    if isinstance(f, _C_METHODS) or (isinstance(f, BuiltinFunctionType) and isinstance(f.__self__, type)):
        return True  # a C type's own method (object.__new__, int.__format__)
    if isinstance(f, FunctionType):
        where = f.__code__.co_filename
        made = generated and where == "<string>" and generated_code(f.__code__)
        if where not in trusted_files() and not where.startswith(_SANDBOX) and not made \
                and not (root and where.startswith(root)):
            return False
        if where in trusted_files() and not stdlib_code(f):
            return False  # a filename is a string: code re-stamped as functools' is the candidate's (red team 28)
    elif not own_code_free(type(f), root, depth + 1):
        return False
    return all(_trusted_code(x, root, generated, depth + 1) for x in _held_code(f))


def _held_code(f: Any) -> list[Any]:
    """The callables `f` holds: in its closure, its __dict__, a partial's or bound method's slots, and one level
    of containers (a singledispatch registry, a partial's arguments)."""
    found: list[Any] = []
    if isinstance(f, FunctionType):
        found += [c.cell_contents for c in f.__closure__ or () if _cell_full(c)]
    try:
        held = object.__getattribute__(f, "__dict__")
    except AttributeError:
        held = {}
    found += list(dict.values(held)) if type(held) is dict else []
    for slot in ("func", "__func__", "args", "keywords"):  # functools.partial's, a bound method's (C slots)
        try:
            found.append(object.__getattribute__(f, slot))
        except AttributeError:
            continue
    out: list[Any] = []
    for x in found:
        members = list(dict.values(x)) if type(x) is dict else list(x) if type(x) in (list, tuple) else [x]
        out += [m for m in members if callable(m) and not isinstance(m, type)]
    return out


def _cell_full(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def stdlib_code(f: FunctionType) -> bool:
    """`f`'s code is one the trusted standard-library modules hold (by identity, walked once, before the candidate
    is imported: `KernelRules` asks first), not just one whose `co_filename` names their file."""
    return id(f.__code__) in _stdlib_codes()


@functools.cache
def _stdlib_codes() -> frozenset[int]:
    """The ids of every code object the trusted modules' functions and classes hold, nested ones included (they
    stay alive with their modules, so an id is never reused)."""
    found: set[int] = set()
    seen: set[int] = set()  # by object: wrappers share one code object (typing's _tp_cache), each holds its own

    def add(code: Any) -> None:
        if id(code) not in found:
            found.add(id(code))
            for c in code.co_consts:
                if hasattr(c, "co_consts"):
                    add(c)

    def visit(f: Any, depth: int) -> None:
        # a function, and the code it holds: what a decorator's wrapper closes over (typing's _tp_cache holds the
        # original), an lru_cache wrapper's __wrapped__, a descriptor's accessors (enum.property's fget)
        if id(f) in seen:
            return
        seen.add(id(f))
        if isinstance(f, FunctionType):
            add(f.__code__)
        if depth < 4:
            for h in _held_code(f):
                visit(h, depth + 1)

    for name in ("abc", "collections", "dataclasses", "enum", "functools", "types", "typing"):
        module = sys.modules.get(name) or __import__(name)
        for value in list(vars(module).values()):
            held = list(type.__dict__["__dict__"].__get__(value).values()) if isinstance(value, type) else [value]
            for v in held:
                for f in _code_of(v):
                    visit(f, 0)
    return frozenset(found)


@functools.cache
def trusted_files() -> frozenset[str]:
    import abc
    import collections
    import dataclasses
    import enum
    import functools
    import types
    import typing

    return frozenset({collections.__file__, enum.__file__, dataclasses.__file__, typing.__file__, abc.__file__,
                      types.__file__, functools.__file__})


def _code_of(v: Any) -> list[Any]:
    """The code a class attribute runs when used: a method's function, a property's accessors; any other object
    that is callable or a descriptor (defines __get__) as itself."""
    if isinstance(v, (classmethod, staticmethod)):
        return [v.__func__]
    if isinstance(v, property):
        return [f for f in (v.fget, v.fset, v.fdel) if f is not None]
    if isinstance(v, functools.cached_property):
        return [v.func]
    if callable(v) or hasattr(type(v), "__get__"):
        return [v]
    return []


@functools.cache
def triton_root() -> str:
    """triton's package folder, with a trailing separator."""
    import triton

    return os.path.dirname(triton.__file__) + os.sep


def triton_own(cls: type) -> bool:
    """A class of triton's own: the one its module holds under its name, with code written in triton only."""
    known = _TRITON_OWN.get(id(cls))  # by identity: hashing a class may run its metaclass's code
    if known is None or known[0] is not cls:
        own = _in_triton_module(cls) and own_code_free(cls, triton_root())
        known = _TRITON_OWN[id(cls)] = (cls, own)
    return known[1]


_TRITON_OWN: dict[int, tuple[type, bool]] = {}
