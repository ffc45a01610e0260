"""Where a class's code was written: whether using an instance can run any of the candidate's code.

A value is judged by its class's code, not by what the class says it is: a class can name itself
`TensorDescriptor`, claim `__module__ = "numpy"`, or subclass `int` and add a method the interpreter would run
inside a kernel. A class is free of the candidate's code when every method it and its bases define (properties'
accessors included) was written in the standard library's enum, collections, dataclasses, typing or abc modules
(an enum member, a namedtuple, a dataclass, a generic) or, where asked, under one package's folder (triton's), or is a C type's own.
"""

from __future__ import annotations

import functools
import sys
from types import BuiltinFunctionType, FunctionType, MethodDescriptorType, WrapperDescriptorType
from typing import Any

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (C types are not)
_C_METHODS = (WrapperDescriptorType, MethodDescriptorType)


def own_code_free(cls: type, root: str = "") -> bool:
    """Whether every method `cls` and its bases define is the standard library's (an enum member's, a namedtuple's)
    or, given `root`, a package's under that folder (triton's): a C type, or a class with none of the candidate's
    code. Checked by where the code was written, not by what the class says its module is."""
    import abc
    import collections
    import dataclasses
    import enum
    import typing

    files = {collections.__file__, enum.__file__, dataclasses.__file__, typing.__file__, abc.__file__}
    for c in type.__dict__["__mro__"].__get__(cls):
        if not c.__flags__ & _HEAP_TYPE:
            continue
        state = type.__dict__["__dict__"].__get__(c)
        generated = "_fields" in state or "__dataclass_fields__" in state  # their methods are made from "<string>"
        for v in state.values():
            for f in _code_of(v):
                if isinstance(f, _C_METHODS) or (isinstance(f, BuiltinFunctionType) and isinstance(f.__self__, type)):
                    continue  # a C type's own method (object.__new__, int.__format__)
                where = f.__code__.co_filename if isinstance(f, FunctionType) else ""
                if where not in files and not (generated and where == "<string>") \
                        and not (root and where.startswith(root)):
                    return False
    return True


def _code_of(v: Any) -> list[Any]:
    """The functions a class attribute runs when used (a method's, a property's accessors'); a callable of any
    other kind as itself (no function: refused by the caller)."""
    if isinstance(v, (classmethod, staticmethod)):
        return [v.__func__]
    if isinstance(v, property):
        return [f for f in (v.fget, v.fset, v.fdel) if f is not None]
    if isinstance(v, functools.cached_property):
        return [v.func]
    return [v] if callable(v) and not isinstance(v, type) else []


@functools.cache
def triton_root() -> str:
    """triton's package folder, with a trailing separator."""
    import os

    import triton

    return os.path.dirname(triton.__file__) + os.sep


def triton_own(cls: type) -> bool:
    """A class of triton's own: the one its module holds under its name, with code written in triton only."""
    known = _TRITON_OWN.get(id(cls))  # by identity: hashing a class may run its metaclass's code
    if known is None or known[0] is not cls:
        name = type.__dict__["__module__"].__get__(cls)
        qualname = type.__dict__["__qualname__"].__get__(cls)
        own = (isinstance(name, str) and name.startswith("triton.")
               and getattr(sys.modules.get(name), qualname, None) is cls and own_code_free(cls, triton_root()))
        known = _TRITON_OWN[id(cls)] = (cls, own)
    return known[1]


_TRITON_OWN: dict[int, tuple[type, bool]] = {}
