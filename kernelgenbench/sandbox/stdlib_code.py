"""Which functions are the standard library's own, and which code it generated from text, by identity.

A function's `co_filename` is a string (`code.replace(co_filename=functools.__file__)`), and a function made
from the standard library's code can carry globals of the candidate's (`FunctionType(functools._gt_from_lt.__code__,
{"type": ...})`: the code then calls what those globals name). So a function is the standard library's when its
code is one the trusted modules' functions and classes held when the worker walked them, before the candidate
was imported, and its globals are the dict of the module that code belongs to.

The code dataclasses and namedtuple generate from text (a dataclass's `__init__`, a namedtuple's `__new__`,
all named "<string>") is counted when the worker starts and, after that, when the worker's audit hook
(sandbox/hooks.py) reports an `exec` run by `collections.namedtuple` itself (which checks its field names) or
by dataclasses' code on behalf of `_process_class` for a class whose fields are all identifiers: text of the
candidate's, compiled through `dataclasses._create_fn` called by hand, is not counted.
"""

from __future__ import annotations

import functools
import sys
from types import CodeType, FrameType, FunctionType
from typing import Any

from kernelgenbench.sandbox.held_code import code_of, held_code

_TRUSTED = ("abc", "collections", "dataclasses", "enum", "functools", "types", "typing")


@functools.cache
def trusted_files() -> frozenset[str]:
    """The files of the trusted standard-library modules."""
    return frozenset(_module(name).__file__ for name in _TRUSTED)


def stdlib_function(f: FunctionType) -> bool:
    """`f`'s code is one the trusted modules held (walked once, before the candidate is imported: `KernelRules`
    asks first) and its globals are that code's module's."""
    code, glob = FunctionType.__dict__["__code__"].__get__(f), FunctionType.__dict__["__globals__"].__get__(f)
    return _stdlib_globals().get(id(code)) is glob


@functools.cache
def _stdlib_globals() -> dict[int, dict[str, Any]]:
    """For every code object the trusted modules' functions and classes hold, nested ones included, the globals
    of the functions that run it, by the code's id (code stays alive with its module, so an id is never reused)."""
    found: dict[int, dict[str, Any]] = {}
    seen: set[int] = set()  # by object: wrappers share one code object (typing's _tp_cache), each holds its own

    def add(code: CodeType, glob: dict[str, Any]) -> None:
        if id(code) not in found:
            found[id(code)] = glob
            for c in code.co_consts:
                if type(c) is CodeType:
                    add(c, glob)

    def visit(f: Any, depth: int) -> None:
        # a function, and the code it holds: what a decorator's wrapper closes over (typing's _tp_cache holds the
        # original), an lru_cache wrapper's __wrapped__, a descriptor's accessors (enum.property's fget)
        if id(f) in seen:
            return
        seen.add(id(f))
        if isinstance(f, FunctionType):
            add(f.__code__, f.__globals__)
        if depth < 4:
            for h in held_code(f):
                visit(h, depth + 1)

    for name in _TRUSTED:
        for value in list(vars(_module(name)).values()):
            members = list(type.__dict__["__dict__"].__get__(value).values()) if isinstance(value, type) else [value]
            for v in members:
                for f in code_of(v):
                    visit(f, 0)
    return found


def _module(name: str) -> Any:
    return sys.modules.get(name) or __import__(name)


# Generated code by id, each kept alive so that an id is never reused (see the module's docstring).
_GENERATED: dict[int, CodeType] = {}
_GLOBAL_NAMES: dict[int, tuple[str, ...]] = {}


def watch_generated() -> None:
    """Count as generated the "<string>" code of every function alive now (before the candidate is imported), and
    take the generators' code (before the candidate could replace them)."""
    import gc

    _generators()
    for f in gc.get_objects():
        if type(f) is FunctionType and f.__code__.co_filename == "<string>":
            _note(f.__code__)


def note_exec(code: Any, frame: FrameType | None) -> None:
    """An exec (or eval) of `code` run from `frame` (an audit hook's caller): counted as generated where
    namedtuple itself ran it, or dataclasses' own code working for `_process_class` on identifier fields."""
    if type(code) is not CodeType or frame is None:
        return
    namedtuple, process, dataclasses_globals = _generators()
    if frame.f_code is namedtuple:
        _note(code)
        return
    while frame is not None and _stdlib_globals().get(id(frame.f_code)) is dataclasses_globals:
        if frame.f_code is process:
            if _identifier_fields(frame.f_locals.get("fields")):
                _note(code)
            return
        frame = frame.f_back


def _identifier_fields(fields: Any) -> bool:
    """`_process_class`'s fields, each a dataclasses Field named by an identifier (the names go into the text)."""
    import dataclasses

    name = dataclasses.Field.__dict__["name"].__get__  # the slot, not an attribute a subclass could answer
    return type(fields) is dict and all(type(k) is str and k.isidentifier() and type(v) is dataclasses.Field
                                        and type(name(v)) is str and name(v) == k
                                        for k, v in dict.items(fields))


def generated_globals(f: FunctionType) -> list[Any] | None:
    """For a function whose code the standard library generated (see the module's docstring): the values the
    names it reads as globals or builtins have now, to be judged (a dataclass's `__hash__` calls `hash`, looked
    up first in the candidate's module); None for any other function."""
    code = FunctionType.__dict__["__code__"].__get__(f)
    if code.co_filename != "<string>" or _GENERATED.get(id(code)) is not code:
        return None
    glob = FunctionType.__dict__["__globals__"].__get__(f)
    builtins = FunctionType.__dict__["__builtins__"].__get__(f) if "__builtins__" in FunctionType.__dict__ else {}
    missing = object()
    out = []
    for name in _global_names(code):
        value = dict.get(glob, name, missing) if isinstance(glob, dict) else missing
        if value is missing and isinstance(builtins, dict):
            value = dict.get(builtins, name, missing)
        if value is not missing:
            out.append(value)
    return out


def _global_names(code: CodeType) -> tuple[str, ...]:
    """The names `code` and its nested code load as globals."""
    import dis

    names = _GLOBAL_NAMES.get(id(code))
    if names is None:
        todo, found = [code], []
        while todo:
            c = todo.pop()
            found += [i.argval for i in dis.get_instructions(c) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]
            todo += [k for k in c.co_consts if type(k) is CodeType]
        names = _GLOBAL_NAMES[id(code)] = tuple(dict.fromkeys(found))
    return names


def _note(code: CodeType) -> None:
    _GENERATED[id(code)] = code
    for c in code.co_consts:
        if type(c) is CodeType:
            _note(c)


@functools.cache
def _generators() -> tuple[CodeType, CodeType | None, dict[str, Any]]:
    """namedtuple's code, dataclasses' `_process_class`'s, and dataclasses' globals, as loaded before the candidate."""
    import collections
    import dataclasses

    process = getattr(dataclasses, "_process_class", None)
    return (collections.namedtuple.__code__, process.__code__ if isinstance(process, FunctionType) else None,
            vars(dataclasses))
