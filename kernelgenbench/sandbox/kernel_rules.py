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

import builtins
import dis
import enum
import functools
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import (
    BuiltinFunctionType,
    CodeType,
    FunctionType,
    GetSetDescriptorType,
    MemberDescriptorType,
    ModuleType,
)
from typing import Any

from kernelgenbench.sandbox.class_code import implicit_code_free, own_code_free, triton_root
from kernelgenbench.sandbox.scalars import number_values
from kernelgenbench.sandbox.stdlib_code import stdlib_function, watch_generated
from kernelgenbench.sandbox.triton_code import TritonCode, default_triton

# triton's CodeGenerator.builtin_namespace: the only Python builtins a kernel body may name.
TRITON_BUILTINS = frozenset({"len", "list", "range", "float", "int", "isinstance", "getattr", "hasattr",
                             "print", "min", "max"})
# Modules whose functions a body may call through a module attribute (a GPU compile calls them on constants).
_CONSTANT_MODULES = ("math", "cmath", "operator", "triton")  # not builtins (vars, eval) nor functools
_TRITON_LANGUAGE = ("triton.language", "triton.experimental.gluon.language")
_PLAIN = (type(None), bool, int, float, complex, str, bytes)
# The builtins a body may name, as Python holds them when this module is imported (before the candidate): a
# name that holds anything else at a launch (`builtins.max` swapped for the launch's length) is that thing.
_BUILTINS = {n: getattr(builtins, n) for n in TRITON_BUILTINS}


@dataclass(frozen=True)
class _Body:
    """What one kernel function's source names, found once per code object."""

    names: tuple[tuple[str, int], ...]  # free names read (globals, closure cells, builtins), with lines
    chains: tuple[tuple[str, tuple[str, ...], int], ...]  # a free name and the attributes read off it
    handles: tuple[int, ...]  # lines that read `.handle` (the interpreter's numpy block behind a tl.tensor)
    writes: tuple[tuple[str, int], ...]  # globals or closure cells the body assigns (`global X`)
    dynamic: tuple[tuple[str, tuple[str, ...], int], ...]  # getattr(root.a, name) with a name known at run time
    dunders: tuple[tuple[str, int], ...] = ()  # `.__dict__`, `.__code__`...: an object's internals, on any value
    attr_writes: tuple[tuple[str, int], ...] = ()  # `obj.attr = v`, `del obj.attr`


class KernelRules:
    """The rule's breaks and the baked-in numbers of each launched kernel; kept for the worker's life (what a
    constant held at a kernel's last launch is remembered across calls)."""

    def __init__(self, triton: TritonCode | None = None) -> None:
        self.triton = triton or default_triton()  # triton's own code, as loaded now (before the candidate)
        stdlib_function(self.__init__.__func__)  # the standard library's code objects, walked now too (before it)
        watch_generated()  # and the code it generated for the classes loaded so far
        self._bodies: dict[CodeType, _Body] = {}
        self._last: dict[tuple[Any, ...], int] = {}
        # per function judged at the last check: what each name it reads held then (by identity)
        self._held: list[tuple[FunctionType, _Body, dict[str, int]]] = []

    def check(self, kernel: Any, args: tuple[Any, ...] = (), runs: Any = None) -> tuple[list[str], list[float | int]]:
        """The breaks of the rule in `kernel`, in the JIT functions it names and in those among its launch
        `args`, and the numbers of its constants that changed since its last launch. `runs` maps a JIT function
        to the Python function that executes for it (the interpreter's rewrite; by default `.fn`). Only an
        interpreted kernel's breaks matter: a GPU compile refuses a compiled one's itself (the launch counter
        keeps them where the rule was off)."""
        runs = runs or _function
        self._held = []
        tc = self.triton
        breaks = [b for i, v in enumerate(args) for b in _argument_breaks(i, v, tc)]
        numbers: list[float | int] = []
        seen: set[CodeType] = set()
        settable: dict[CodeType, frozenset[str]] = {}  # an aggregate's __init__: the fields it sets on itself
        todo = [_own(runs(kernel), tc)] + [_own(runs(v), tc) for v in _jit_arguments(args)]
        while todo:
            fn = todo.pop()
            if fn is None or fn.__code__ in seen:
                continue
            seen.add(fn.__code__)
            body = self._body(fn)
            held: dict[str, int] = {}
            self._held.append((fn, body, held))
            for ref, value, line, via in _references(fn, body):
                held[ref] = id(value)
                why = _break(value, ref, via, tc)
                if why:
                    breaks.append(f"{fn.__qualname__} (line {line}) reads {ref}: {why}")
                inner = value.value if _is_constexpr(value) else value
                if _compile_time(inner):
                    continue  # host code a GPU compile runs on constants (interpreted: recorded and counted)
                if _jit(inner):
                    todo.append(_own(runs(inner), tc))
                elif (made := _user_aggregate(inner, tc)) is not None:  # its __init__ and methods: kernel bodies
                    judged = [_own(f if isinstance(f, FunctionType) else runs(f), tc) for f in made]
                    todo.extend(judged)
                    fields = _type_dict(inner).get("__aggregate_fields__", ())
                    init = _aggregate_init(inner)  # a plain function or a compile-time one (triton's own tests)
                    at = next((i for i, f in enumerate(made) if f is init), None)
                    if at is not None and judged[at] is not None and type(fields) is tuple:
                        settable[judged[at].__code__] = frozenset(f for f in fields if type(f) is str)
                else:
                    numbers.extend(self._changed((fn.__code__, ref), value))
            breaks.extend(_body_breaks(fn, body, tc, settable.get(fn.__code__, frozenset())))
            breaks.extend(_default_breaks(fn, tc))
        return breaks, numbers

    def codes(self) -> list[CodeType]:
        """The code of every body the last check judged as the kernel's (an aggregate's `__init__`, which the
        interpreter runs as given, with them)."""
        return [fn.__code__ for fn, _, _ in self._held]

    def literals(self) -> tuple[Any, ...]:
        """The literal constants of the code the last checked kernels run (their nested code's too), in order:
        a kernel's literals repeat from launch to launch; an answer written into its source (a rewritten
        linecache entry, a code object built by hand) changes with the data."""
        return tuple(_literals(fn.__code__) for fn, _, _ in self._held)

    def baked(self) -> list[Any]:
        """The values the last checked kernels read that a GPU compile bakes in (not modules, JIT functions or
        triton's own objects)."""
        out = []
        for fn, body, _ in self._held:
            out += [v for ref, v, _, via in _references(fn, body)
                    if (not (isinstance(v, ModuleType) or _jit(v) or callable(v) or v is _Absent
                             or _triton_allowed(v, via, self.triton)) or _is_constexpr(v))
                    and _break(v, ref, via, self.triton) is None]  # a break is judged as one, not as baked data
        return out

    def rebound(self) -> list[str]:
        """The names the last checked kernel reads that now hold what the rule refuses, where they held something
        else when it was checked (host code run between its programs rebound them)."""
        out = []
        for fn, body, held in self._held:
            for ref, value, line, via in _references(fn, body):
                why = _break(value, ref, via, self.triton) if held.get(ref, id(value)) != id(value) else None
                if why:
                    out.append(f"{fn.__qualname__} (line {line}) reads {ref}, rebound while the launch ran: {why}")
        return out

    def _body(self, fn: FunctionType) -> _Body:
        code = fn.__code__
        if code not in self._bodies:
            self._bodies[code] = _read_code(code)
        return self._bodies[code]

    def _changed(self, key: tuple[Any, ...], value: Any) -> list[float | int]:
        """`value`'s host numbers if they differ from those it held at the last launch (none at the first)."""
        found = list(number_values(value))
        digest = hash(tuple(found))
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


def _own(fn: FunctionType | None, tc: TritonCode | None = None) -> FunctionType | None:
    """`fn` unless it is triton's own (tl.sum, tl.cdiv: triton.language compiles them), by its code's identity:
    a function made from the candidate's code with a triton module's globals is judged."""
    return None if fn is None or (tc or default_triton()).function(fn) else fn


def _body_breaks(fn: FunctionType, body: _Body, tc: TritonCode | None = None,
                 settable: frozenset[str] = frozenset()) -> Iterator[str]:
    """What the body does that no GPU compile accepts, whatever its names hold (`settable`: the attributes an
    aggregate's `__init__` sets, its fields, which triton's own `__setattr__` checks)."""
    for line in body.handles:
        yield (f"{fn.__qualname__} (line {line}) reads `.handle`, the interpreter's numpy array behind a block: "
               f"no GPU compiles it")
    for attr, line in body.dunders:
        yield (f"{fn.__qualname__} (line {line}) reads or sets `.{attr}`: no GPU compile reads an object's "
               f"internals (the interpreter would hand over a block's host data)")
    for attr, line in body.attr_writes:
        if attr not in settable:
            yield f"{fn.__qualname__} (line {line}) assigns the attribute `.{attr}`, which a GPU compile refuses"
    scope = _scope(fn)
    for root, attrs, line in body.chains:
        if _interpreter_own(scope.get(root, _Absent), root, "", tc) and (root, *attrs[:1]) not in _rewrite_refs()[1]:
            yield (f"{fn.__qualname__} (line {line}) reads {'.'.join((root, *attrs))}: an attribute of the "
                   f"interpreter's own `{root}`, which no kernel names (no GPU compile has it)")
    for name, line in body.writes:
        yield f"{fn.__qualname__} (line {line}) assigns the global `{name}`, which a GPU compile refuses"
    for root, attrs, line in body.dynamic:
        if not root:
            yield (f"{fn.__qualname__} (line {line}) reads getattr(<a value of the kernel>, <a name known at run "
                   f"time>): the interpreter would hand it a block's host data (`handle`), which no GPU compile has")
            continue
        value = _resolve(fn, root, attrs)
        for attr, why in _dynamic_breaks(value, tc):
            yield (f"{fn.__qualname__} (line {line}) reads getattr({'.'.join((root, *attrs))}, <a name known at run "
                   f"time>), which may be `{attr}`: {why}")


def _dynamic_breaks(value: Any, tc: TritonCode | None = None) -> Iterator[tuple[str, str]]:
    """For an attribute read by a name known only at run time: every attribute it could be that breaks the rule
    (a module's or a namedtuple type's own; any other object: that it is read at all)."""
    if isinstance(value, ModuleType) and str(getattr(value, "__name__", "")).split(".")[0] == "triton":
        return  # getattr(tl, OP): whatever triton's modules hold is theirs to compile
    if isinstance(value, ModuleType) or _namedtuple_type(value):
        via = str(getattr(value, "__name__", ""))
        for attr, held in list(vars(value).items()):
            why = None if attr.startswith("__") else _break(held, attr, via, tc)
            if why:
                yield attr, why
                return
    elif value is not _Absent and not _triton_allowed(value, "", tc):
        yield "?", f"a {type(value).__name__}, whose attributes a GPU compile cannot read by a run-time name"


def _argument_breaks(i: int, value: Any, tc: TritonCode | None = None) -> Iterator[str]:
    """A launch argument a GPU launch refuses: a plain Python function (bare or in a constexpr), a module, or an
    object that is no tensor, number, string, dtype or tuple of them (an object whose own methods, `__add__` or
    `__index__`, the interpreter would run inside the kernel, out of every recorder's sight)."""
    inner = getattr(value, "value", value) if _is_constexpr(value) else value
    if isinstance(inner, tuple) and not own_code_free(type(inner)):
        yield (f"launch argument {i} is a {type(inner).__name__}, a tuple class with methods of the candidate's (the "
               f"interpreter would run them in the kernel)")
    for v in tuple.__iter__(inner) if isinstance(inner, tuple) else (inner,):
        if isinstance(v, type):
            yield (f"launch argument {i} is a class ({v.__name__}), which a GPU launch refuses (the interpreter "
                   f"would run its code in the kernel)")
        elif isinstance(v, ModuleType) or (callable(v) and not _triton_allowed(v, "", tc)
                                           and not _constant_function(v, tc)):
            yield (f"launch argument {i} is a {type(v).__name__}, which a GPU launch refuses (the interpreter would "
                   f"call it on the host)")
        elif not callable(v) and not _launch_value(v):
            yield (f"launch argument {i} is a {type(v).__name__}, which a GPU launch cannot specialize (no tensor, "
                   f"number, string, dtype or tuple of them: the interpreter would run its own methods in the kernel)")


def _default_breaks(fn: FunctionType, tc: TritonCode) -> Iterator[str]:
    """A judged function's parameter defaults that a GPU launch would refuse as arguments (red team 48: a device
    function's `f=host_fn`, called in its body as a local, which no name the rule reads shows)."""
    defaults = FunctionType.__dict__["__defaults__"].__get__(fn) or ()
    code = FunctionType.__dict__["__code__"].__get__(fn)
    named = dict(zip(code.co_varnames[code.co_argcount - len(defaults):code.co_argcount], defaults, strict=False))
    named.update(FunctionType.__dict__["__kwdefaults__"].__get__(fn) or {})
    for name, value in named.items():
        for why in _argument_breaks(0, value, tc):
            yield f"{fn.__qualname__}'s default for `{name}` " + why.removeprefix("launch argument 0 ")


def _launch_value(v: Any, depth: int = 0) -> bool:
    """A value a launch may take: a tensor or an object with a data pointer (a library's strided buffer: read
    before the launch, sandbox/launch_args.py), a plain constant, a torch dtype, triton's own dtypes, blocks and
    tensor descriptors, a real numpy scalar, a tuple of them. Judged by the class's code, not its name: an
    instance whose class has methods of the candidate's (an int subclass, a class named TensorDescriptor) would
    run them inside the kernel."""
    import torch
    from triton import language

    # a launch's own arguments are plain tensors by now (sandbox/launch_args.py made them so); a tensor-like
    # object here was never replaced (a parameter's default, a constexpr global: red team 27)
    if type(v) is torch.Tensor or _plain(v) or _enum_member(v):
        return True
    kernel_values = (language.dtype, language.tensor, getattr(language.core, "tensor_descriptor_base", language.tensor))
    if isinstance(v, kernel_values) or type(v).__name__ == "TensorDescriptor":
        return own_code_free(type(v), triton_root())
    return isinstance(v, tuple) and own_code_free(type(v)) and depth < 4 and all(_launch_value(x, depth + 1) for x in v)


def _jit_arguments(args: tuple[Any, ...]) -> Iterator[Any]:
    """The JIT functions passed to a launch (a constexpr function argument the kernel calls)."""
    for value in args:
        inner = getattr(value, "value", value) if _is_constexpr(value) else value
        for v in inner if isinstance(inner, tuple) else (inner,):
            if _jit(v):
                yield v


_LOAD_ROOT = ("LOAD_GLOBAL", "LOAD_NAME")
_LOAD_FREE = ("LOAD_DEREF", "LOAD_CLASSDEREF")
_ATTR = ("LOAD_ATTR", "LOAD_METHOD")
_CALL = ("PRECALL", "CALL", "CALL_FUNCTION", "CALL_FUNCTION_KW", "CALL_KW", "KW_NAMES")


def _literals(code: CodeType) -> tuple[Any, ...]:
    """The constants of `code` and its nested code that are no code object, in order (docstrings included)."""
    return tuple(k for c in _codes(code) for k in c.co_consts if not isinstance(k, CodeType))


def code_key(kernel: Any) -> str:
    """A short mark of the code a JIT function's Python function holds: two kernels of one name are two keys."""
    fn = _function(kernel)
    return f"{hash(fn.__code__) & 0xFFFFFFFF:08x}" if fn is not None else ""


def _codes(code: CodeType) -> Iterator[CodeType]:
    """`code` and the code objects nested in it (comprehensions, lambdas the interpreter's rewrite adds)."""
    stack = [code]
    while stack:
        c = stack.pop()
        yield c
        stack.extend(k for k in c.co_consts if isinstance(k, CodeType))


def _read_code(code: CodeType) -> _Body:
    """The free names, attribute chains, `.handle` reads and global writes of the code that runs: its bytecode,
    which no docstring, swapped `.fn` or seeded cache can make differ from what executes."""
    names: list[tuple[str, int]] = []
    chains: list[tuple[str, tuple[str, ...], int]] = []
    handles: set[int] = set()
    writes: list[tuple[str, int]] = []
    dynamic: list[tuple[str, tuple[str, ...], int]] = []
    dunders: list[tuple[str, int]] = []
    attr_writes: list[tuple[str, int]] = []
    free = set(code.co_freevars)
    for c in _codes(code):
        ins = list(dis.get_instructions(c))
        line = c.co_firstlineno
        for i, x in enumerate(ins):
            line = (x.positions.lineno if x.positions and x.positions.lineno else line)
            op, arg = x.opname, x.argval
            if (op in _ATTR + ("STORE_ATTR", "DELETE_ATTR") or op == "LOAD_CONST") and arg == "handle":
                handles.add(line)  # `.handle`, or the name given to getattr on any object
            if op in _ATTR + ("STORE_ATTR", "DELETE_ATTR") and str(arg).startswith("__") and str(arg).endswith("__"):
                dunders.append((str(arg), line))
            if op in ("STORE_ATTR", "DELETE_ATTR"):
                attr_writes.append((str(arg), line))
            if op in ("STORE_GLOBAL", "DELETE_GLOBAL") or (op in ("STORE_DEREF", "DELETE_DEREF") and arg in free
                                                           and c is code):
                writes.append((str(arg), line))
            if not (op in _LOAD_ROOT or (op in _LOAD_FREE and arg in free)):
                continue
            names.append((str(arg), line))
            attrs, j = _attrs(ins, i + 1)
            if attrs:
                chains.append((str(arg), attrs, line))
            if arg in ("getattr", "hasattr") and op in _LOAD_ROOT:
                found = _getattr_call(ins, i + 1)
                if found is not None:
                    (chains if found[2] else dynamic).append((found[0], found[1], line))
                elif not _literal_name(ins, i + 1):
                    dynamic.append(("", (), line))  # on a local (a block): "handle" hands it the host data
    return _Body(tuple(names), tuple(chains), tuple(sorted(handles)), tuple(writes), tuple(dynamic), tuple(dunders),
                 tuple(attr_writes))


def _attrs(ins: list[dis.Instruction], j: int) -> tuple[tuple[str, ...], int]:
    """The attribute names loaded one after another from instruction `j` on, and the index after them."""
    attrs = []
    while j < len(ins) and ins[j].opname in _ATTR:
        attrs.append(str(ins[j].argval))
        j += 1
    return tuple(attrs), j


def _getattr_call(ins: list[dis.Instruction], j: int) -> tuple[str, tuple[str, ...], bool] | None:
    """For `getattr(root.a, name)` with `root` a free name: (root, attrs with the name where it is a literal,
    whether it is); None where the object is no free name (a local: the launch arguments are judged)."""
    if j >= len(ins) or ins[j].opname not in _LOAD_ROOT + _LOAD_FREE:
        return None
    root = str(ins[j].argval)
    attrs, k = _attrs(ins, j + 1)
    literal = k < len(ins) and ins[k].opname == "LOAD_CONST" and isinstance(ins[k].argval, str)
    if literal:
        rest = ins[k + 1:k + 3]
        literal = any(r.opname in _CALL for r in rest)  # the literal is the name, not a default's start
    return (root, (*attrs, str(ins[k].argval)) if literal else attrs, literal)


def _literal_name(ins: list[dis.Instruction], j: int) -> bool:
    """For `getattr(obj, name)` with `obj` a local read from instruction `j` on (attributes after it too):
    whether `name` is a literal string."""
    _, k = _attrs(ins, j + 1)
    return k < len(ins) and ins[k].opname == "LOAD_CONST" and isinstance(ins[k].argval, str)


def _scope(fn: FunctionType) -> dict[str, Any]:
    """What the function's free names resolve to now: its globals, with its closure cells over them."""
    scope = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or (), strict=False):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is unbound
            continue
    return scope


def _followed(value: Any) -> bool:
    """Attributes read off it are evaluated by a GPU compile as constants: a module's, a namedtuple type's."""
    return isinstance(value, ModuleType) or _namedtuple_type(value)


def _resolve(fn: FunctionType, root: str, attrs: tuple[str, ...]) -> Any:
    """`root.a.b` as the body reads it now, followed through modules and namedtuple types only."""
    value = _scope(fn).get(root, _Absent)
    for attr in attrs:
        if not _followed(value):
            break
        value = getattr(value, attr, _Absent)
    return value


def _references(fn: FunctionType, body: _Body) -> Iterator[tuple[str, Any, int, str]]:
    """Each distinct name and module (or namedtuple type) attribute the body reads, resolved now: (spelling,
    value, line, the name of the module or type it was read from, "" for a name)."""
    scope = _scope(fn)
    done: set[str] = set()
    for name, line in body.names:
        if name not in done:
            done.add(name)
            yield name, scope.get(name, _builtin(fn, name)), line, ""
    for root, attrs, line in body.chains:
        value, via = scope.get(root, _Absent), ""
        spelled = root
        for attr in attrs:
            if _jit(value):  # an attribute of a JIT function (`helper.fn`): judged as a name is
                via = ""
            elif _is_constexpr(value) or _scalar(value):  # `C.value`, `C.value.method`: each step judged
                via = _ON_CONSTANT
            elif _followed(value):
                via = str(getattr(value, "__module__", "") if isinstance(value, type) else getattr(value, "__name__", ""))
            else:
                break
            value = getattr(value, attr, _Absent)
            spelled += "." + attr
        if spelled != root and spelled not in done:
            done.add(spelled)
            yield spelled, value, line, via


class _Absent:
    """A name a body reads that is neither global, closed over, nor a builtin."""


def _builtin(fn: FunctionType, name: str) -> Any:
    """What a name of the builtins triton knows resolves to in `fn` now (its own `__builtins__`, which a function
    made by hand may bring); _Absent for any other name (judged by its spelling)."""
    if name not in TRITON_BUILTINS:
        return _Absent
    held = FunctionType.__dict__["__builtins__"].__get__(fn) if "__builtins__" in FunctionType.__dict__ else None
    held = vars(held) if isinstance(held, ModuleType) else held
    return held.get(name, _Absent) if type(held) is dict else getattr(builtins, name, _Absent)


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement
_ON_CONSTANT = "<constant>"  # `via` for an attribute read off a constexpr or a scalar


def _scalar(value: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return isinstance(value, _PLAIN if numpy is None else (*_PLAIN, numpy.number, numpy.bool_))


def _break(value: Any, ref: str, via: str, tc: TritonCode | None = None) -> str | None:
    """Why a GPU compile refuses (or mis-bakes) what the body reads as `ref` (read from module `via`, "" for a
    name); None where it is allowed."""
    if via == _ON_CONSTANT:  # red team 28: `_ONE.value.fold(acc, a, b)`, a method of a scalar subclass
        return None if (_plain(value) or _is_constexpr(value)) else (
            f"a {type(value).__name__} read off a constant, which a GPU compile cannot call or bake in")
    if not via and ref in _BUILTINS and value is _BUILTINS[ref]:
        return None
    if value is _Absent:
        if via:
            return None  # a missing module attribute raises the same AttributeError on a GPU: the call fails
        if ref in TRITON_BUILTINS or _exception_class(getattr(builtins, ref, None)):
            return None  # an exception class carries no value (`raise ValueError(...)` in a branch never compiled)
        if hasattr(builtins, ref):
            return (f"the Python builtin `{ref}`, which a GPU compile does not know (a kernel names only "
                    f"{', '.join(sorted(TRITON_BUILTINS))})")
        return None  # undefined: the interpreter raises NameError as a GPU compile does
    if _is_constexpr(value):
        return _constexpr_break(value.value)
    if _triton_allowed(value, via, tc) or _interpreter_own(value, ref, via, tc) or _native_enum(value, ref, via):
        return None
    if via and ((_plain(value) and _exact_scalars(value)) or _constant_function(value, tc)):
        return None
    if via.split(".")[0] == "triton" and _interpreter_patch(value, tc):
        return None
    if _libdevice_fix(value):
        return None  # on a device the name is libdevice's extern; under the interpreter the worker's numpy body
    kind = type(value).__name__
    if callable(value):
        return (f"a plain Python {kind}, not a JIT function: a GPU compile refuses the call (the interpreter ran "
                f"it on the host at every launch)")
    return (f"a {kind}, which a GPU compile refuses (a kernel may name only constexpr globals, modules, JIT "
            f"functions and triton.language members)")


def baked_value_break(value: Any) -> str | None:
    """Why a value a compile-time function returned cannot be baked into a kernel (None where it can): a GPU
    compile takes a constant back, and the interpreter would run any other object's methods on the blocks."""
    from triton import language

    def baked(v: Any, depth: int) -> bool:
        v = v.value if _is_constexpr(v) else v
        if v is None or _plain(v) or (isinstance(v, language.dtype) and own_code_free(type(v), triton_root())):
            return True
        # an exact tuple or list of them (a dtype pair, a block shape: `tl.zeros(shape(B), ...)`)
        return type(v) in (tuple, list) and depth < 4 and all(baked(x, depth + 1) for x in v)

    if baked(value, 0):
        return None
    inner = value.value if _is_constexpr(value) else value
    return (f"a {type(inner).__name__}, which a GPU compile cannot bake in (no number, string, dtype or tuple or list "
            f"of them)")


def _constexpr_break(inner: Any) -> str | None:
    """A constexpr is allowed by type, and so is one holding a plain function (`@tl.constexpr def f`: a compile-time
    function a GPU compile calls on constants; the numbers it returns are counted as the launch's, see
    sandbox/interpreted_kernels.py); one holding a module-like object or a container of functions is not."""
    if isinstance(inner, ModuleType):
        return "a constexpr holding a module, which a GPU compile refuses"
    if callable(inner) and not (type(inner) is FunctionType or _compile_time(inner) or _triton_allowed(inner)):
        return (f"a constexpr holding a {type(inner).__name__} (a callable with methods of its own, which the "
                f"interpreter would run on the kernel's blocks), which a GPU compile cannot call")
    if not callable(inner) and not _launch_value(inner):
        return (f"a constexpr holding a {type(inner).__name__}, which a GPU compile cannot bake in (no number, string, "
                f"dtype or tuple of them: the interpreter would run its own methods in the kernel)")
    return None


def _interpreter_own(value: Any, ref: str, via: str, tc: TritonCode | None = None) -> bool:
    """What the interpreter's rewrite names (`_InterpreterComparison`), from the globals it copies into the
    kernel's module: the interpreter module's own object under that name, with triton's code only. Any other
    of its globals (interpreter_builder) no kernel names: on a GPU the name is undefined."""
    interpreter = sys.modules.get("triton.runtime.interpreter")
    if via or interpreter is None or ref not in _rewrite_refs()[0] or getattr(interpreter, ref, _Absent) is not value:
        return False
    tc = tc or default_triton()
    return tc.function(value) or _triton_class(value if isinstance(value, type) else type(value))


@functools.cache
def _rewrite_refs() -> tuple[frozenset[str], frozenset[tuple[str, ...]]]:
    """The names the interpreter's rewrite puts into a kernel's code (`ast.Name(id="...")` in its transformer), and
    the attribute chains it reads off them (`interpreter_semantic.to_tensor`), read from its source."""
    import importlib
    import inspect
    import re

    try:
        src = inspect.getsource(importlib.import_module("triton.runtime.interpreter"))
    except (ImportError, OSError, TypeError):
        return frozenset(), frozenset()
    names = frozenset(re.findall(r"""ast\.Name\(\s*id\s*=\s*["'](\w+)["']""", src))
    chains = frozenset(re.findall(r"""ast\.Attribute\(\s*value\s*=\s*ast\.Name\(\s*id\s*=\s*["'](\w+)["'].{0,80}?"""
                                  r"""attr\s*=\s*["'](\w+)["']""", src, re.DOTALL))
    return names, chains


def _triton_class(cls: type) -> bool:
    """Every method, accessor, callable attribute and class attribute a class (and its bases) holds is triton's own
    (code and globals identity, by the TritonCode `default_triton` keeps: the worker's, taken before the
    candidate), the standard library's (an Enum base's) or generated by it (a namedtuple's `__new__`):
    sandbox/class_code.py's judge, with triton trusted."""
    return own_code_free(cls, triton_root())


def _is_constexpr(value: Any) -> bool:
    """A constexpr of triton's own classes (a subclass of the candidate's would run its dunders on blocks)."""
    from triton import language

    return isinstance(value, language.constexpr) and _triton_class(type(value))


def _namedtuple_type(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")


def _interpreter_patch(value: Any, tc: TritonCode | None = None) -> bool:
    """What Triton's interpreter puts in place of a triton.language member during a launch (its own lambdas
    and functions, partials of them, `print` for static_print): code of the interpreter's own."""
    value = getattr(value, "func", value) if isinstance(value, functools.partial) else value
    if value is _BUILTINS["print"]:
        return True
    interpreter = sys.modules.get("triton.runtime.interpreter")
    return (isinstance(value, FunctionType) and interpreter is not None and value.__globals__ is interpreter.__dict__
            and (tc or default_triton()).function(value))


def _libdevice_fix(value: Any) -> bool:
    """A libdevice function the worker gave a numpy body for the interpreter (sandbox/interpreter_fixes.py)."""
    fixes = sys.modules.get("kernelgenbench.sandbox.interpreter_fixes")
    return fixes is not None and fixes.is_patched(value)


def _exception_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


def _triton_allowed(value: Any, via: str = "", tc: TritonCode | None = None) -> bool:
    """triton's `global_lookup` rule, with a member's module checked to hold it (a `__module__` set by hand
    names no triton member) and, given `tc`, its code checked to be triton's."""
    from triton import language

    if isinstance(value, (ModuleType, language.dtype, language.constexpr)) or _jit(value) or _namedtuple_type(value):
        # by kind, and then by code: a subclass of its own (a dtype, a constexpr, a JIT function, a module, a
        # "namedtuple" or its metaclass) would run its methods on the kernel's blocks mid-launch (red team 26)
        cls = value if _namedtuple_type(value) else type(value)
        return _triton_class(cls) and _triton_class(type(cls))
    marked = getattr(value, "__triton_builtin__", False) is True or getattr(value, "__triton_aggregate__", False) is True
    if marked and _member_of(value, ("triton",), via, tc):
        return True  # a builtin's mark is trusted only on what triton's own modules hold
    if _user_aggregate(value, tc or default_triton()) is not None:
        return True  # its own functions are judged as the kernel's (KernelRules.check)
    return _member_of(value, _TRITON_LANGUAGE, via, tc)


def _user_aggregate(value: Any, tc: TritonCode) -> list[Any] | None:
    """For a class `@triton.aggregate` made of the candidate's (Triton 3.4+: a record of blocks built in a
    kernel), the functions of the candidate's it runs (its `__init__`, which the interpreter runs on the
    blocks, and its JIT methods), to be judged as kernel bodies; None for anything else, or for a class whose
    other members are not triton's aggregate machinery, plain data and JIT functions."""
    if not isinstance(value, type) or _type_dict(value).get("__triton_aggregate__") is not True:
        return None
    new = _type_dict(value).get("__new__")
    make = getattr(new, "__func__", None)
    if not isinstance(make, FunctionType) or not tc.function(make):
        return None  # not made by triton's _aggregate
    init = _aggregate_init(value)
    if init is None:
        return None
    own: list[Any] = [] if isinstance(init, FunctionType) and tc.function(init) else [init]
    for member in _type_dict(value).values():
        fn = getattr(member, "__func__", member) if isinstance(member, (classmethod, staticmethod)) else member
        if _jit(member):
            own.append(member)
        elif isinstance(fn, FunctionType):
            if not tc.function(fn):
                return None  # a plain Python method of the candidate's: the interpreter would run it on blocks
        elif isinstance(member, property):
            if not all(f is None or tc.function(f) for f in (member.fget, member.fset, member.fdel)):
                return None
        elif isinstance(member, type) or ((callable(member) or hasattr(type(member), "__get__"))
                                          and type(member) not in _SLOT_DESCRIPTORS):
            return None  # red team 48: `__add__ = functools.partial(host_fn)`, a builtin or a callable object
    return own if all(isinstance(f, FunctionType) or _jit(f) for f in own) else None


_SLOT_DESCRIPTORS = (GetSetDescriptorType, MemberDescriptorType)  # a class's own `__dict__`, `__weakref__`


def _aggregate_init(cls: type) -> Any:
    """The `__init__` triton's `_aggregate` closed its `__new__` over (None where there is none)."""
    make = getattr(_type_dict(cls).get("__new__"), "__func__", None)
    if not isinstance(make, FunctionType):
        return None
    cells = dict(zip(make.__code__.co_freevars, make.__closure__ or (), strict=False))
    try:
        return cells["init"].cell_contents
    except (KeyError, ValueError):
        return None


def _type_dict(cls: type) -> Any:
    """A class's own namespace, read through type's accessor (a metaclass cannot answer for it)."""
    return type.__dict__["__dict__"].__get__(cls)


def _native_enum(value: Any, ref: str, via: str) -> bool:
    """One of triton's enums (`tl.PropagateNan`, made in its C++ extension), as triton loaded it, read from the
    triton.language module that holds it under the name read."""
    if not default_triton().enum(value):
        return False
    if not any(via == p or via.startswith(p + ".") for p in _TRITON_LANGUAGE):
        return False
    return getattr(sys.modules.get(via), ref.rsplit(".", 1)[-1], None) is value


def _enum_member(v: Any) -> bool:
    """A member of one of triton's enums as triton loaded it (`tl.PropagateNan.ALL`): a constant. Another enum's
    member is not: its class may hold data a kernel reads off the member (red team 50)."""
    return isinstance(v, enum.Enum) and default_triton().enum(type(v))


def _member_of(value: Any, prefixes: tuple[str, ...], via: str = "", tc: TritonCode | None = None) -> bool:
    """`value` is a function or class that the module it names (under one of `prefixes`) really holds, or that the
    module it was read from (`via`, under the same prefixes) holds under its name: the interpreter leaves a
    member it patched for a launch (tl.static_range) re-exported where it was read but not where it was made.
    Given `tc`, a function's code must be triton's own and a class's functions too (a function the candidate
    wrote and put into triton.language, its `__module__` set to match, is the candidate's)."""
    if tc is not None and prefixes != _CONSTANT_MODULES:
        if isinstance(value, FunctionType) and not tc.function(value):
            return False
        if isinstance(value, type) and not _triton_class(value):
            return False
    module = getattr(value, "__module__", None)
    name = getattr(value, "__name__", None)
    if not isinstance(module, str) or not isinstance(name, str):
        return False
    if not any(module == p or module.startswith(p + ".") for p in prefixes):
        return False
    holders = (module, via) if any(via == p or via.startswith(p + ".") for p in prefixes) else (module,)
    return any(getattr(sys.modules.get(m), name, None) is value for m in holders)


def _compile_time(value: Any) -> bool:
    """A `@triton.constexpr_function`: plain Python a GPU compile calls on constants, with no name rule (the worker
    runs it as the launch's host code and counts what it returns: sandbox/interpreted_kernels.py)."""
    try:
        from triton.runtime.jit import ConstexprFunction
    except ImportError:  # an older triton: no such functions
        return False
    return isinstance(value, ConstexprFunction)


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
    """A constant a GPU compile can bake in: a number, a string, a torch dtype, a numpy number, a tuple or frozenset
    of them. A scalar subclass (an enum member) counts as its value: a launch gets the exact value
    (sandbox/launch_args.py) and a global's methods are names the body reads, each judged; a tuple subclass must
    carry none of the candidate's code (a namedtuple's methods would run in an interpreted kernel)."""
    import torch

    if type(value) is torch.dtype:
        return True
    if _scalar(value):  # a subclass whose `__mul__` is the candidate's would run it on blocks
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(value, (numpy.number, numpy.bool_)):
            return not type(value).__flags__ & _HEAP_TYPE  # numpy's own scalar types, never a subclass (rt 28)
        return type(value) in _PLAIN or implicit_code_free(type(value))
    if isinstance(value, (tuple, frozenset)) and depth < 4 and own_code_free(type(value)):
        return all(_plain(v, depth + 1) for v in (tuple.__iter__(value) if isinstance(value, tuple) else value))
    return False


def _exact_scalars(value: Any, depth: int = 0) -> bool:
    """No scalar subclass in `value` (read through a module or a namedtuple type, a value reaches the kernel as it
    is: no launch makes it exact, and a subclass's own attributes would be read or called in the kernel)."""
    if isinstance(value, (tuple, frozenset)) and depth < 4:
        return all(_exact_scalars(v, depth + 1) for v in (tuple.__iter__(value) if isinstance(value, tuple) else value))
    return not isinstance(value, _PLAIN) or type(value) in _PLAIN


def _constant_function(value: Any, tc: TritonCode | None = None) -> bool:
    """A function of Python's math or operator modules, or of triton's (triton.cdiv): what a GPU compile may
    call on constants (a Python function of triton's: its code triton's own)."""
    if isinstance(value, FunctionType) and tc is not None and not tc.function(value):
        return False
    return isinstance(value, (BuiltinFunctionType, FunctionType)) and _member_of(value, _CONSTANT_MODULES)
