"""Whose code a class runs: whether using an instance can run any of the candidate's code.

A value is judged by its class's code, not by what the class says it is: a class can name itself
`TensorDescriptor`, claim `__module__ = "numpy"`, or subclass `int` and add a method the interpreter would run
inside a kernel. A class is free of the candidate's code when every method it and its bases define (properties'
accessors included), every class and callable they hold, and what those hold in turn, is a C type's own, the
standard library's (an enum member, a namedtuple, a dataclass, a generic: sandbox/stdlib_code.py, by the
identity of code and globals), code the standard library generated for it, the worker's own, or, where asked,
triton's (sandbox/triton_code.py, by identity too). A file name proves nothing: it is a string.
"""

from __future__ import annotations

import functools
import os
import sys
from types import BuiltinFunctionType, FunctionType, MethodDescriptorType, WrapperDescriptorType
from typing import Any

from kernelgenbench.sandbox.held_code import code_of, held_code
from kernelgenbench.sandbox.stdlib_code import generated_globals, stdlib_function
from kernelgenbench.sandbox.triton_code import default_triton, instance_fn

_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement (C types are not)
_C_METHODS = (WrapperDescriptorType, MethodDescriptorType)


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
            if not (isinstance(name, str) and name.startswith("__") and name.endswith("__")) or name in _MADE_ONLY:
                continue
            if isinstance(v, type) or not all(_trusted_code(f, "", generated, 0) for f in code_of(v)):
                return False
    return True


# Dunders Python runs only where an instance or a class is made, copied or pickled, never on an instance a kernel
# already holds (an enum's `__new__(cls, value, label)` idiom, false-positive hunt 11; an enum keeps its class's
# `__new__` as `__new_member__`): making one in a kernel means naming the class, which the kernel rules judge
# with all its methods. `__str__`, `__repr__` and `__format__` stay judged: a kernel's `print` runs them.
_MADE_ONLY = frozenset({"__new__", "__init__", "__init_subclass__", "__class_getitem__", "__set_name__", "__reduce__",
                        "__reduce_ex__", "__getnewargs__", "__getnewargs_ex__", "__copy__", "__deepcopy__",
                        "__getstate__", "__setstate__", "__subclasshook__", "__post_init__", "__new_member__"})


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
            if not all(_trusted_code(f, root, generated, depth) for f in code_of(v)):
                return False
    return True


def _trusted_code(f: Any, root: str, generated: bool, depth: int) -> bool:
    """A function of the standard library's (code and globals), of triton's or the worker's (code and globals,
    given `root`), or generated by the standard library for this class (and what its globals name), and all code
    it holds (closure cells, defaults, its own __dict__, what those hold in containers); a C method; a class
    free of the candidate's code, metaclass included; a descriptor or callable object whose own class is free of
    the candidate's code, and all code it holds (a partial's function, arguments and keywords)."""
    if depth > _DEPTH:
        return False
    if isinstance(f, _C_METHODS) or (isinstance(f, BuiltinFunctionType) and isinstance(f.__self__, type)):
        return True  # a C type's own method (object.__new__, int.__format__)
    if issubclass(type(f), type):  # a class, called: its own methods run (red team 29: staticmethod(Class))
        return own_code_free(f, root, depth + 1) and own_code_free(type(f), root, depth + 1)
    jit = _jit_function(f)
    if jit is not None:  # what runs is its Python function; the rest of its state is triton's caches
        return own_code_free(type(f), root, depth + 1) and _trusted_code(jit, root, generated, depth + 1)
    held = held_code(f)
    if type(f) is FunctionType:
        made = generated_globals(f) if generated else None
        if made is not None:
            held += made  # what its globals name: `_tuple_new`, a `hash` the candidate's module defines
        elif not (stdlib_function(f) or _own_function(f, root)):
            return False  # a file name or a code object alone is no proof (red teams 28, 29)
    elif not own_code_free(type(f), root, depth + 1):
        return False
    return all(_trusted_code(x, root, generated, depth + 1) for x in held)


def _jit_function(f: Any) -> FunctionType | None:
    """The Python function of a JIT, interpreted or compile-time function of one of triton's own classes (a class
    a triton module holds under its name), or None."""
    return instance_fn(f) if _in_triton_module(type(f)) else None


def _own_function(f: FunctionType, root: str) -> bool:
    """A function of the worker's sandbox (its patches of triton's classes) or, given `root`, of triton's: by code
    and globals identity (sandbox/triton_code.py)."""
    if not default_triton().function(f):
        return False
    name = FunctionType.__dict__["__globals__"].__get__(f).get("__name__")
    return bool(root) or (isinstance(name, str) and name.startswith("kernelgenbench.sandbox."))


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
