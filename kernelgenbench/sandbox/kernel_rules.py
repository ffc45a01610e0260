"""Triton's compile rule for what a kernel body may name, applied to every launch, compiled or interpreted.

A GPU compile (triton's code_generator, `global_lookup`) lets a @jit body name only constexpr globals,
modules, JIT functions, triton.language members, dtypes and namedtuple types, plus the few builtins it
knows (`len`, `range`, `min`, ...). Under TRITON_INTERPRET=1 a kernel body is plain Python: it can read a
global list that holds an answer computed on the host, call a plain function that writes the output, or
run numpy on a block's `.handle`. No GPU compiles such a kernel, so the interpreter's verdict must be the
GPU's: each break of the rule is listed as evidence (the evaluator's checks/kernel_rules.py judges), over
the kernel and every JIT function it names, transitively.

What a body reads through a module (`mod.TABLE[i]`, `math.pi`) a GPU compile evaluates once and bakes
into the kernel as constants; so do constexpr globals. Plain values are allowed there, and their numbers
are returned to be counted with the launch arguments whenever they changed since the kernel's last launch:
an answer computed on the host and baked into the kernel changes with the inputs, a constant does not.
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from types import BuiltinFunctionType, CodeType, FunctionType, ModuleType
from typing import Any

from kernelgenbench.sandbox.launches import host_number

# triton's CodeGenerator.builtin_namespace: the only Python builtins a kernel body may name.
TRITON_BUILTINS = frozenset({"len", "list", "range", "float", "int", "isinstance", "getattr", "hasattr",
                             "print", "min", "max"})
# Modules whose functions a body may call through a module attribute (a GPU compile calls them on constants).
_CONSTANT_MODULES = ("math", "cmath", "operator", "builtins", "functools", "triton")
_TRITON_LANGUAGE = ("triton.language", "triton.experimental.gluon.language")
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
_MAX_NUMBERS = 1 << 16  # numbers taken from one value (a table larger than this is no kernel constant)


@dataclass(frozen=True)
class _Body:
    """What one kernel function's source names, found once per code object."""

    names: tuple[tuple[str, int], ...]  # free names read (not arguments, not assigned in the body), with lines
    chains: tuple[tuple[str, tuple[str, ...], int], ...]  # a free name and the attributes read off it
    handles: tuple[int, ...]  # lines that read `.handle` (the interpreter's numpy block behind a tl.tensor)


class KernelRules:
    """The rule's breaks and the baked-in numbers of each launched kernel; kept for the worker's life (what a
    constant held at a kernel's last launch is remembered across calls)."""

    def __init__(self) -> None:
        self._bodies: dict[CodeType, _Body | None] = {}
        self._last: dict[tuple[Any, ...], int] = {}

    def check(self, kernel: Any) -> tuple[list[str], list[float | int]]:
        """The breaks of the rule in `kernel` and the JIT functions it names, and the numbers of its
        constants that changed since its last launch. Only an interpreted kernel's breaks matter: a GPU
        compile refuses a compiled one's itself (the launch counter keeps them where the rule was off)."""
        breaks: list[str] = []
        numbers: list[float | int] = []
        seen: set[CodeType] = set()
        todo = [_own(_function(kernel))]
        while todo:
            fn = todo.pop()
            if fn is None or fn.__code__ in seen:
                continue
            seen.add(fn.__code__)
            body = self._body(fn)
            if body is None:
                continue
            first = fn.__code__.co_firstlineno - 1
            for ref, value, line, via in _references(fn, body):
                where = f"{fn.__qualname__} (line {first + line}) reads {ref}"
                why = _break(value, ref, via)
                if why:
                    breaks.append(f"{where}: {why}")
                if _jit(value):
                    todo.append(_own(_function(value)))
                else:
                    numbers.extend(self._changed((fn.__code__, ref), value))
            breaks.extend(f"{fn.__qualname__} (line {first + line}) reads `.handle`, the interpreter's numpy array behind "
                          f"a block: no GPU compiles it" for line in body.handles)
        return breaks, numbers

    def _body(self, fn: FunctionType) -> _Body | None:
        code = fn.__code__
        if code not in self._bodies:
            self._bodies[code] = _read_body(fn)
        return self._bodies[code]

    def _changed(self, key: tuple[Any, ...], value: Any) -> list[float | int]:
        """`value`'s host numbers if they differ from those it held at the last launch (none at the first)."""
        found = list(_numbers(value))
        digest = hash((len(found), tuple(found[:4096])))
        last = self._last.get(key)
        self._last[key] = digest
        return found if last is not None and last != digest else []


def _function(kernel: Any) -> FunctionType | None:
    """The Python function behind a JIT function, an interpreted one or a constexpr function."""
    for _ in range(4):
        if isinstance(kernel, FunctionType):
            return kernel
        kernel = getattr(kernel, "fn", None)
    return None


def _own(fn: FunctionType | None) -> FunctionType | None:
    """`fn` unless it is triton's own (tl.sum, tl.cdiv: triton.language compiles them)."""
    if fn is None:
        return None
    module = sys.modules.get(str(fn.__globals__.get("__name__", "")))
    if module is not None and module.__dict__ is fn.__globals__ and module.__name__.split(".")[0] == "triton":
        return None
    return fn


def _read_body(fn: FunctionType) -> _Body | None:
    """The free names, module attribute chains and `.handle` reads of `fn`'s body (None: no source, which no
    JIT function lacks)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    node = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if node is None:
        return None
    a = node.args
    local = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x is not None}
    nodes = [n for stmt in node.body for n in ast.walk(stmt)]
    local |= {n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    names = tuple((n.id, n.lineno) for n in nodes
                  if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local)
    chains = tuple(c for n in nodes for c in _chain(n, local))
    handles = tuple(sorted({n.lineno for n in nodes if isinstance(n, ast.Attribute) and n.attr == "handle"}))
    return _Body(names, chains, handles)


def _chain(node: ast.AST, local: set[str]) -> Iterator[tuple[str, tuple[str, ...], int]]:
    """`root.a.b` or `getattr(root, "a")` read off a free name, as (root, ("a", "b"), line)."""
    attrs: list[str] = []
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        attrs.append(node.args[1].value)
        node = node.args[0]
    elif not isinstance(node, ast.Attribute):
        return
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id not in local:
        yield node.id, tuple(reversed(attrs)), line


def _references(fn: FunctionType, body: _Body) -> Iterator[tuple[str, Any, int, str]]:
    """Each distinct name and module attribute the body reads, resolved now: (spelling, value, line, the name of
    the module it was read from, "" for a name)."""
    scope = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is unbound
            continue
    done: set[str] = set()
    for name, line in body.names:
        if name not in done:
            done.add(name)
            yield name, scope.get(name, _Absent), line, ""
    for root, attrs, line in body.chains:
        value, via = scope.get(root, _Absent), ""
        spelled = root
        for attr in attrs:
            if not isinstance(value, ModuleType):
                break
            via = str(getattr(value, "__name__", ""))
            value = getattr(value, attr, _Absent)
            spelled += "." + attr
        if spelled != root and spelled not in done:
            done.add(spelled)
            yield spelled, value, line, via


class _Absent:
    """A name a body reads that is neither global, closed over, nor a builtin."""


def _break(value: Any, ref: str, via: str) -> str | None:
    """Why a GPU compile refuses (or mis-bakes) what the body reads as `ref` (read from module `via`, "" for a
    name); None where it is allowed."""
    if value is _Absent:
        if via:
            return None  # a missing module attribute raises the same AttributeError on a GPU: the call fails
        if ref in TRITON_BUILTINS or _exception_class(getattr(builtins, ref, None)):
            return None  # an exception class carries no value (`raise ValueError(...)` in a branch never compiled)
        if hasattr(builtins, ref):
            return (f"the Python builtin `{ref}`, which a GPU compile does not know (a kernel names only "
                    f"{', '.join(sorted(TRITON_BUILTINS))})")
        return None  # undefined: the interpreter raises NameError as a GPU compile does
    if _triton_allowed(value, via):
        return None
    if via and (_plain(value) or _constant_function(value)):
        return None
    if via.split(".")[0] == "triton" and _interpreter_patch(value):
        return None
    kind = type(value).__name__
    if callable(value):
        return (f"a plain Python {kind}, not a JIT function: a GPU compile refuses the call (the interpreter ran "
                f"it on the host at every launch)")
    return (f"a {kind}, which a GPU compile refuses (a kernel may name only constexpr globals, modules, JIT "
            f"functions and triton.language members)")


def _interpreter_patch(value: Any) -> bool:
    """What Triton's interpreter puts in place of a triton.language member during a launch (its own lambdas
    and functions, partials of them, `print` for static_print)."""
    value = getattr(value, "func", value) if isinstance(value, functools.partial) else value
    if value is builtins.print:
        return True
    interpreter = sys.modules.get("triton.runtime.interpreter")
    return isinstance(value, FunctionType) and interpreter is not None and value.__globals__ is interpreter.__dict__


def _exception_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


def _triton_allowed(value: Any, via: str = "") -> bool:
    """triton's `global_lookup` rule, with a member's module checked to hold it (a `__module__` set by hand
    names no triton member)."""
    from triton import language

    if isinstance(value, (ModuleType, language.dtype, language.constexpr)) or _jit(value):
        return True
    if getattr(value, "__triton_builtin__", False) is True or getattr(value, "__triton_aggregate__", False) is True:
        return True
    if isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields"):
        return True  # a namedtuple type
    return _member_of(value, _TRITON_LANGUAGE, via)


def _member_of(value: Any, prefixes: tuple[str, ...], via: str = "") -> bool:
    """`value` is a function or class that the module it names (under one of `prefixes`) really holds, or that the
    module it was read from (`via`, under the same prefixes) holds under its name: the interpreter leaves a
    member it patched for a launch (tl.static_range) re-exported where it was read but not where it was made."""
    module = getattr(value, "__module__", None)
    name = getattr(value, "__name__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        return False
    if not any(module == p or module.startswith(p + ".") for p in prefixes):
        return False
    holders = (module, via) if any(via == p or via.startswith(p + ".") for p in prefixes) else (module,)
    return any(getattr(sys.modules.get(m), name, None) is value for m in holders)


def _jit(value: Any) -> bool:
    """A Triton JIT function, compiled or interpreted (or a constexpr function)."""
    try:
        from triton.runtime.jit import JITCallable as callable_type
    except ImportError:  # an older triton
        from triton.runtime.jit import JITFunction as callable_type
    if isinstance(value, callable_type):
        return True
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:
        return False
    return isinstance(value, InterpretedFunction)


def _plain(value: Any, depth: int = 0) -> bool:
    """A constant a GPU compile can bake in: a number, a string, a torch dtype, a tuple or frozenset of them."""
    import torch

    if isinstance(value, _PLAIN) or isinstance(value, torch.dtype):
        return True
    if isinstance(value, (tuple, frozenset)) and depth < 4:
        return all(_plain(v, depth + 1) for v in value)
    return False


def _constant_function(value: Any) -> bool:
    """A function of Python's math or operator modules, or of triton's (triton.cdiv): what a GPU compile may
    call on constants."""
    return isinstance(value, (BuiltinFunctionType, FunctionType)) and _member_of(value, _CONSTANT_MODULES)


def _numbers(value: Any) -> Iterator[float | int]:
    """The host numbers (floats, float-sized ints) in a value, a constexpr or a container, at most _MAX_NUMBERS."""
    stack, n = [value], 0
    while stack and n < _MAX_NUMBERS:
        v = stack.pop()
        v = getattr(v, "value", v) if type(v).__name__ == "constexpr" else v
        if host_number(v):
            n += 1
            yield float(v) if isinstance(v, float) else int(v)
        elif isinstance(v, (tuple, list, frozenset, set)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
