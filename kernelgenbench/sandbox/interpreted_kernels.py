"""The function Triton's interpreter runs for a kernel, made by the worker and judged where it runs.

Under TRITON_INTERPRET=1 a kernel is an `InterpretedFunction`: at each launch and each device-function call it
runs `self.rewrite()`, a function compiled from the source of `self.rewriter.fn`, found from the last line that
starts with "def " and kept in a class-level cache. Every one of those is the candidate's to change: a `.fn`
swapped after `triton.jit`, a cache entry seeded with a plain function, a second `def` inside a string, an
instance attribute named `rewrite`. A rule applied to any other object than the one that runs reads a body that
never executes.

So the worker owns that step (`install`, before the candidate is imported): the function given to the
InterpretedFunction's constructor is remembered; `rewrite` is a data descriptor on the class (an instance
attribute cannot shadow it) that compiles that function's source from its real `def` (the parser's, as a GPU
compile finds it) into a cache the worker holds; and the kernel rule (sandbox/kernel_rules.py) is applied when
the launch's grid is set, to the function the executor will run and to the arguments as it bound them
(defaults filled in, whatever the grid callable changed in them), read from the executor's frame: after the
grid callable and the pre-run hooks (host code that could rebind what the body reads) have run, before any
program executes.

A compile-time function (`@tl.constexpr def f`, or `@triton.constexpr_function`) runs once per compile on a GPU
and its result is baked into the kernel; the interpreter calls it between the programs (handing it a block
value is a break: a GPU compile hands it constants only). Each call runs as the candidate's host code (recorded,
the write ledger checked after it: LaunchCounter.host_code), its result is counted with the launch's values,
and the names the kernels read are checked again after it (host code that rebinds one to a plain function
and back before the launch ends is caught in between).
"""

from __future__ import annotations

import ast
import contextlib
import sys
import textwrap
import weakref
from types import CodeType, FunctionType
from typing import Any


class InterpretedKernels:
    """The functions the interpreter runs, one per kernel function given to triton.jit; the launch in progress."""

    def __init__(self) -> None:
        self._given: weakref.WeakKeyDictionary[Any, tuple[FunctionType, dict[str, Any]]] = weakref.WeakKeyDictionary()
        self._made: dict[FunctionType, FunctionType] = {}
        # the launch whose grid is not set yet: (kernel, the launch counter that judges it)
        self.launching: tuple[Any, Any] | None = None
        self.running: Any = None  # the launch counter of the launch whose programs run now

    def install(self) -> dict[str, tuple[Any, str]]:
        """Take over the interpreter's rewrite and watch the grid being set; the replaced class attributes, to
        be watched for replacement ({} without the interpreter)."""
        try:
            from triton.language import constexpr
            from triton.runtime.interpreter import FunctionRewriter, InterpretedFunction, InterpreterBuilder
        except ImportError:
            return {}
        from triton.language import tensor as tl_tensor
        from triton.runtime.interpreter import GridExecutor
        try:
            from triton.runtime.jit import ConstexprFunction
        except ImportError:  # a triton before compile-time functions
            ConstexprFunction = None  # noqa: N806 - the class, when this triton has it

        init, set_grid_dim, call = InterpretedFunction.__init__, InterpreterBuilder.set_grid_dim, constexpr.__call__
        function_call = ConstexprFunction.__call__ if ConstexprFunction is not None else None
        executor_code = GridExecutor.__call__.__code__
        kernels = self

        def __init__(self: Any, fn: Any, *args: Any, **kwargs: Any) -> None:
            init(self, fn, *args, **kwargs)
            if isinstance(fn, FunctionType):
                kernels._given[self] = (fn, dict(kwargs))

        def checked_set_grid_dim(self: Any, *dims: Any) -> Any:
            caller = sys._getframe(1)  # the executor, its arguments bound as the programs will get them
            found = caller.f_locals if caller.f_code is executor_code else {}
            kernels._judge_launch(found.get("self"), found.get("args"))
            watch = getattr(kernels.running, "watch", None)
            if watch is not None:  # the programs run next (sandbox/launch_watch.py)
                watch.programs(kernels.scopes())
            return set_grid_dim(self, *dims)

        def counted_call(self: Any, *args: Any, **kwargs: Any) -> Any:
            counter = kernels.running
            if counter is None or _jit_function(self.value):  # a JIT function in a constexpr: a kernel call
                return call(self, *args, **kwargs)
            handed = _handed_break((args, kwargs), tl_tensor)  # red teams 26-28: numpy on the blocks' data
            if handed:
                counter.note_break(f"the constexpr function {getattr(self.value, '__qualname__', '?')} is handed "
                                   f"{handed}")
            with _compile_time_code(counter, self.value):  # a compile-time function: host code, run per program here
                out = call(self, *args, **kwargs)
            kernels._judge_result(counter, self.value, out)
            counter.note_baked(out)
            return out

        def counted_function(self: Any, *args: Any, **kwargs: Any) -> Any:
            counter = kernels.running
            if counter is None:
                return function_call(self, *args, **kwargs)
            judged = kernels._made.get(getattr(self, "fn", None))
            if judged is not None:
                # a body the rule judged as the kernel's (an aggregate's compile-time __init__, which a GPU compile
                # runs on the blocks' handles): the judged rewrite runs, as the kernel's code (red team 50: the
                # function given could differ from the source judged, through `functools.wraps`)
                return _call_unwrapped(judged, args, kwargs)
            handed = _handed_break((args, kwargs), tl_tensor)
            if handed:
                counter.note_break(f"the compile-time function {getattr(self.fn, '__qualname__', '?')} is handed "
                                   f"{handed}")
            with _compile_time_code(counter, self.fn):
                out = function_call(self, *args, **kwargs)
            kernels._judge_result(counter, self.fn, out)
            counter.note_baked(out)
            return out

        def refuse(self: Any, value: Any) -> None:
            raise AttributeError("the worker makes the interpreter's functions; `rewrite` cannot be replaced")

        InterpretedFunction.__init__ = __init__
        InterpretedFunction.rewrite = property(lambda k: lambda: kernels.runs(k, FunctionRewriter), refuse)
        InterpreterBuilder.set_grid_dim = checked_set_grid_dim
        constexpr.__call__ = counted_call
        watched = {f"triton.InterpretedFunction.{n}": (InterpretedFunction, n) for n in ("__init__", "rewrite")} | \
            {"triton.InterpreterBuilder.set_grid_dim": (InterpreterBuilder, "set_grid_dim"),
             "triton.constexpr.__call__": (constexpr, "__call__")}
        if ConstexprFunction is not None:
            ConstexprFunction.__call__ = counted_function
            watched["triton.ConstexprFunction.__call__"] = (ConstexprFunction, "__call__")
        return watched

    def runs(self, kernel: Any, rewriter: Any = None) -> FunctionType | None:
        """The function that executes for `kernel` (None for no interpreted function): the one given to its
        constructor, rewritten once for the interpreter from its real `def`."""
        given = self._given.get(kernel) if _weakrefable(kernel) else None
        if given is None:
            fn = getattr(kernel, "fn", None)
            if not isinstance(fn, FunctionType):
                return None
            given = (fn, {})
            if _weakrefable(kernel):
                self._given[kernel] = given  # made without the constructor: its first function stays its own
        fn, kwargs = given
        made = self._made.get(fn)
        if made is None:
            # inside a launch (a device function's first call, the kernel's own), its compile evaluates the
            # body's defaults, and triton reads the source through `inspect`: host code of the launch, recorded
            counter = self.running or (self.launching[1] if self.launching is not None else None)
            inside = counter is not None and counter.in_window
            with _compile_time_code(counter, fn) if inside else contextlib.nullcontext():
                made = self._made[fn] = _rewrite(fn, kwargs, rewriter)
        return made

    def codes(self) -> list[CodeType]:
        """The code of every JIT function a launch ran or the rule judged, as given and as rewritten
        (sandbox/launch_watch.py lets it run)."""
        # the original too: the interpreter runs a reduction's combine function as given (`.fn`), not rewritten
        return [f.__code__ for pair in self._made.items() for f in pair]

    def scopes(self) -> list[dict[str, Any]]:
        """The module globals of every JIT function a launch ran or the rule judged (each once)."""
        return list({id(g): g for g in (f.__globals__ for f in self._made) if isinstance(g, dict)}.values())

    def _judge_launch(self, executor: Any, args: Any) -> None:
        launch, self.launching = self.launching, None
        if launch is None:
            return
        kernel, counter = launch
        fn = getattr(executor, "fn", None)
        values = tuple(args.values()) if isinstance(args, dict) else None
        self.running = counter  # from here the launch's own: a JIT function the rule reads is compiled as its host code
        counter.judge_interpreted(kernel, fn if isinstance(fn, FunctionType) else None, values)

    @staticmethod
    def _judge_result(counter: Any, fn: Any, out: Any) -> None:
        """What a compile-time function returned must be a constant a GPU compile bakes in (red team 27 returned an
        object whose `__mul__` the kernel then ran on its blocks)."""
        from kernelgenbench.sandbox.kernel_rules import baked_value_break

        why = baked_value_break(out)
        if why:
            counter.note_break(f"the compile-time function {getattr(fn, '__qualname__', '?')} returned {why}")

    def launch_ended(self) -> None:
        """The launch returned or raised: nothing pending, nothing counted."""
        self.launching = self.running = None


def _call_unwrapped(fn: Any, args: tuple, kwargs: dict[str, Any]) -> Any:
    """`fn` called as triton's ConstexprFunction calls its own: constexpr arguments unwrapped, `_semantic` dropped."""
    from triton.language.core import _unwrap_if_constexpr

    kwargs.pop("_semantic", None)
    return fn(*map(_unwrap_if_constexpr, args), **{k: _unwrap_if_constexpr(v) for k, v in kwargs.items()})


def _compile_time_code(counter: Any, fn: Any) -> Any:
    """Where host code inside an interpreted launch runs: triton's own (`tl.sum` picks its dtype per program, a
    library device function compiles at its first call) in place, watched; the candidate's as the launch's
    recorded host code, after which the rest of the launch is watched."""
    from kernelgenbench.sandbox.triton_code import default_triton

    return counter.library_code() if default_triton().function(fn) else counter.host_code(mid_launch=True)


def _weakrefable(obj: Any) -> bool:
    try:
        weakref.ref(obj)
    except TypeError:
        return False
    return True


def _jit_function(value: Any) -> bool:
    """One of triton's JIT or interpreted functions (by exact class: a subclass of the candidate's is none)."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    return type(value) in (JITFunction, InterpretedFunction)


def _handed_break(given: tuple[tuple, dict], block: type) -> str | None:
    """Why a compile-time function may not be handed these arguments (None where it may): a GPU compile hands it
    constants only (numbers, strings, dtypes, constexprs, tuples of them); a block, or a generator or lambda
    that yields one, is the interpreter's data on the host (red team 28)."""
    from kernelgenbench.sandbox.kernel_rules import baked_value_break

    if _holds_block(given, block):
        return "a block value, which a GPU compile never hands it (the interpreter hands it data)"
    args, kwargs = given
    why = next((w for w in map(baked_value_break, (*args, *kwargs.values())) if w), None)
    return f"{why}" if why else None


def _holds_block(tree: Any, block: type, depth: int = 0) -> bool:
    """A block value anywhere in nested tuples, lists and dicts (a compile-time function handed `(acc, a, b)`)."""
    if isinstance(tree, block):
        return True
    if depth > 8:
        return False
    if isinstance(tree, dict):
        tree = tuple(tree.values())
    return isinstance(tree, (tuple, list)) and any(_holds_block(x, block, depth + 1) for x in tree)


def _rewrite(fn: FunctionType, kwargs: dict[str, Any], rewriter: Any) -> FunctionType:
    """`fn` compiled as the interpreter compiles it, from the `def` the parser finds (the interpreter takes the
    last line starting with "def ", which a string in the body can hold)."""
    if rewriter is None:
        from triton.runtime.interpreter import FunctionRewriter as rewriter
    r = rewriter(fn, **kwargs)
    r._find_def = _parsed_def  # an instance attribute: triton's class stays as it is
    made = r.rewrite_ast()
    return made if isinstance(made, FunctionType) else fn


def _parsed_def(lines: list[str]) -> int:
    """The line (from 1) of the first function definition in `lines`, as Python parses them (source Python cannot
    parse on its own: the first line that starts with "def ", which a GPU compile's own search finds too)."""
    try:
        tree = ast.parse(textwrap.dedent("".join(lines)))
        return next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))).lineno
    except (SyntaxError, StopIteration):
        return next((i + 1 for i, line in enumerate(lines) if line.lstrip().startswith("def ")), 1)
