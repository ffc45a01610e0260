"""What code an object runs when used, and what code it holds: the parts the class-code judge walks.

Read with the C types' own accessors where an object could answer for itself: a candidate's `__getattr__` must
not run while its object is judged.
"""

from __future__ import annotations

import functools
from types import FunctionType
from typing import Any

_SLOTS = ("func", "__func__", "args", "keywords")  # functools.partial's, a bound method's (C slots)


def code_of(v: Any) -> list[Any]:
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


def held_code(f: Any) -> list[Any]:
    """The callables `f` holds, classes included (called, a class runs its code): in its closure, its defaults,
    its __dict__, a partial's or bound method's slots, and one level of containers (a singledispatch registry,
    a partial's arguments). A class holds nothing here: it is judged by its own methods."""
    if isinstance(f, type):
        return []
    found: list[Any] = []
    if isinstance(f, FunctionType):
        found += [c.cell_contents for c in f.__closure__ or () if cell_full(c)]
        found += list(FunctionType.__dict__["__defaults__"].__get__(f) or ())
        found += list(dict.values(FunctionType.__dict__["__kwdefaults__"].__get__(f) or {}))
    try:
        held = object.__getattribute__(f, "__dict__")
    except AttributeError:
        held = {}
    found += list(dict.values(held)) if type(held) is dict else []
    for slot in _SLOTS:
        try:
            found.append(object.__getattribute__(f, slot))
        except AttributeError:
            continue
    out: list[Any] = []
    for x in found:
        members = list(dict.values(x)) if type(x) is dict else list(x) if type(x) in (list, tuple) else [x]
        out += [m for m in members if callable(m)]
    return out


def cell_full(cell: Any) -> bool:
    """A closure cell that holds a value (an empty one raises when read)."""
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True
