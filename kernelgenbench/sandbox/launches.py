"""Count Triton kernel launches during a call where every launch path ends, compiled or interpreted.

Compiled kernels: every launch, whatever called it (`JITFunction.run`, the autotuner, a library's own cache
of compiled kernels such as FlagGems' `LibEntry` calling `compiled_kernel[grid](...)`), ends in the
compiled kernel's launcher, which calls `triton.knobs.runtime.launch_enter_hook` right before the driver
launch (triton 3.6 to 3.9: a `HookChain`, called from the C launcher). The counter adds itself to that
chain for the block. Under
TRITON_INTERPRET=1 there is no launcher: `InterpretedFunction.run` is wrapped instead. Warm-up calls
(compilation without a launch) reach no launcher and are not counted.

Each Python-level launch (`JITFunction.run`, `InterpretedFunction.run`, a compiled kernel's `[grid]` runner)
also runs inside a profiler range named `range_name`, so the device-activity recorder can tell the aten ops
Triton's launch machinery runs from the candidate's own; and the dispatch recorder is paused there, except
while the candidate's own host code runs inside the launch (its grid callable, its pre-run hooks, an
interpreted kernel's compile-time functions: `host_code`), which is recorded as the call's.

Every scalar a launch is handed (arguments, constants its kernels read, compile-time functions' results) is
logged per kernel and launch in `scalars` (sandbox/scalars.py's ScalarLog: distinct host numbers, and every
scalar by position, which the worker compares with the same workload's previous round). A tensor argument's
storage offset, sizes and strides are scalars too (views into one scratch at chosen offsets hand a kernel
numbers as addresses), as are a tensor descriptor's. Arguments Triton would read through the candidate's own
code (a pointer that is no plain tensor, a scalar subclass) are read before the launch as its host code, and
the launch gets stand-ins (sandbox/launch_args.py).

`loaded_kernels()` names every kernel Triton loaded in this process (its `kernel_load_end_hook`, installed
once by `watch_loaded_kernels`): a device kernel of that name ran from Triton.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import operator
import secrets
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

from kernelgenbench.sandbox import launch_args
from kernelgenbench.sandbox.kernel_rules import code_key
from kernelgenbench.sandbox.protocol import HOST_CODE
from kernelgenbench.sandbox.scalars import ScalarLog

_type = type

_LOADED: set[str] = set()
_GC_ENABLED, _GC_DISABLE, _GC_ENABLE = gc.isenabled, gc.disable, gc.enable  # bound before the candidate runs
_LOADS = [0]  # kernel modules Triton loaded onto the device so far: a compile (or a disk-cache load) ends in one
_LOADS_SEEN = [False]  # whether this triton reports loads at all (`watch_loaded_kernels`)
MAX_BREAKS = 16  # kernel rule breaks kept per call: the first decides the verdict, a few more say how widespread


def _on_kernel_load(module: Any, function: Any, name: Any, metadata_group: Any, hash: Any) -> None:
    _LOADED.add(str(name))
    _LOADS[0] += 1


def watch_loaded_kernels() -> bool:
    """Record, for the rest of the process, the name of every kernel Triton loads; False if this triton cannot say."""
    try:
        from triton import knobs
    except ImportError:
        return False
    chain = getattr(knobs.runtime, "kernel_load_end_hook", None)
    if not hasattr(chain, "add"):
        return False
    chain.add(_on_kernel_load)
    _LOADS_SEEN[0] = True
    return True


def loaded_kernels() -> frozenset[str]:
    """Names of the kernels Triton loaded (or launched under the counter) in this process."""
    return frozenset(_LOADED)


def _kernel_classes() -> list[type]:
    from triton.runtime.jit import JITFunction

    interpreted = _interpreted_class()
    return [JITFunction] if interpreted is None else [JITFunction, interpreted]


def _compiled(kernel: Any) -> int:
    """How many compiled variants a JIT function holds in memory (0 for interpreted ones). Read from triton's own
    JITFunction only, through the base types' code: a compile makes the worker compare the next call with none
    (sandbox/worker.py), so a kernel object of the candidate's that says it compiled would buy a round
    unchecked (red team 17 set a growing dict on its interpreted kernel)."""
    from triton.runtime.jit import JITFunction

    if _type(kernel) is not JITFunction:
        return 0
    caches = dict.get(object.__getattribute__(kernel, "__dict__"), "device_caches")
    if _type(caches) not in (dict, defaultdict):  # triton keeps a defaultdict (one binder per device)
        return 0
    return sum(dict.__len__(c[0]) for c in dict.values(caches) if _type(c) is tuple and c and _type(c[0]) is dict)


def _range_factory() -> Any:
    """A profiler range that goes through no dispatcher op when it can (so no recorder sees it)."""
    try:
        from torch._C._profiler import _RecordFunctionFast

        return _RecordFunctionFast
    except ImportError:  # an older torch
        from torch.autograd.profiler import record_function

        return record_function


def _interpreted_class() -> type | None:
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # a triton build without the interpreter
        return None
    return InterpretedFunction


def _hook_launches(hook: Any) -> Any:
    """Add `hook` to triton's launch-enter hook; the function that takes it out again (None: no knobs here)."""
    try:
        from triton import knobs
    except ImportError:
        return None
    runtime = knobs.runtime
    chain = runtime.launch_enter_hook
    if hasattr(chain, "add"):  # triton 3.6 on: a HookChain
        chain.add(hook)
        return lambda: chain.remove(hook)

    def both(metadata: Any) -> None:  # an older triton: one hook slot, shared with whatever was there
        hook(metadata)
        if chain is not None:
            chain(metadata)

    runtime.launch_enter_hook = both
    return lambda: setattr(runtime, "launch_enter_hook", chain)


class LaunchCounter:
    """Launch counts by kernel name; `recorder.paused` is raised during each launch when a recorder is given.

    `compile_s` sums the wall time of `JITFunction.run` calls that first compiled (or loaded from Triton's
    disk cache) a variant of their kernel: the candidate's compile cost, apart from the evaluator's own.
    `ranges` counts the launch ranges opened, to compare with those the profiler saw.
    """

    def __init__(self, recorder: Any = None, rules: Any = None, memory: Any = None, kernels: Any = None,
                 quiet: Any = None, watch: Any = None) -> None:
        self.range_name = f"kgb_launch_{secrets.token_hex(8)}"  # per call: a range the candidate opens is no launch
        self.launches: Counter[str] = Counter()
        self.recorder = recorder
        self.compile_s = 0.0
        # an autotuner benchmarked configs in the call: its kernels launched many times through the JIT entry,
        # where the next call for the same key makes one launch, often through a library's own cache
        self.benchmarked = False
        self.ranges = 0
        # how each launch was entered, in order: Triton's JIT entry ("jit"), a compiled kernel's `kernel[grid]`
        # ("grid"), its launcher called directly ("direct": FlagGems' LibEntry after a key's first call), or the
        # interpreter ("interpreted"). The paths log different arguments (the worker's _leaves_changed).
        self.paths: list[str] = []
        self._entry = ""  # the entry a launch now under way came through
        self._patched: list[tuple[type, str, Any]] = []  # (class, attribute, the wrapper set there) while active
        # every scalar handed to the call's launches, by kernel and launch (sandbox/scalars.py): distinct floats,
        # and the rest compared by the worker with the same workload's previous round by position, as a kernel's
        # shape-made scalars do not change with the data
        self.scalars = ScalarLog()
        self.rules = rules  # sandbox/kernel_rules.py's KernelRules, kept for the worker's life (None: not checked)
        self.rule_breaks: list[str] = []  # what kernels launched in the call name that no GPU compile allows
        self.memory = memory  # sandbox/launch_memory.py's LaunchMemory: interpreted launches' accesses checked
        self.kernels = kernels  # sandbox/interpreted_kernels.py's InterpretedKernels: what the interpreter runs
        self._launch_args: tuple[Any, ...] = ()  # the interpreted launch's own arguments, until its grid is set
        self._held: list[Any] = []  # what the launch's host code returned (`_host_side`), until the launch ends
        self._launching_now = False  # inside the driver's launcher, before its enter hook ran (`_on_launch`)
        self._hook_counts = "none"  # which enter-hook calls are launches, set by `active`
        self._range = _range_factory()
        # sandbox/hooks.py's InterpreterHooks.quiet: an interpreted launch runs none of the candidate's hooks
        self.quiet = quiet if quiet is not None else contextlib.nullcontext
        # sandbox/launch_watch.py's LaunchWatch: the candidate's code that runs inside an interpreted launch
        self.watch = watch
        self.in_window = 0  # interpreted launches under way (a compile-time function's host code may launch one)

    @property
    def total(self) -> int:
        """Launches counted so far."""
        return sum(self.launches.values())

    @contextlib.contextmanager
    def active(self) -> Iterator[LaunchCounter]:
        """Count launches inside the block; every hook and wrapper is removed on exit."""
        patches = [(cls, "run", cls.__dict__["run"]) for cls in _kernel_classes() if "run" in cls.__dict__]
        compiled = _compiled_kernel_class()
        if compiled is not None:
            patches.append((compiled, "__getitem__", compiled.__dict__["__getitem__"]))
        launcher = _launcher_class()
        if launcher is not None:
            patches.append((launcher, "__call__", launcher.__dict__["__call__"]))
        # where the enter hook counts launches (`_on_launch`): inside the wrapped launcher; on a GPU whose driver
        # has no launcher class to wrap, every call; with no GPU, none (interpreted launches are counted as run)
        self._hook_counts = "launcher" if launcher is not None else "all" if _gpu_visible() else "none"
        tuner = _autotuner_class()
        if tuner is not None:
            patches.append((tuner, "_bench", tuner.__dict__["_bench"]))
        interpreted = _interpreted_class()
        self._patched = []
        wrappers = {"__getitem__": self._wrap_getitem, "__call__": self._wrap_launcher, "_bench": self._wrap_bench}
        for cls, attr, orig in patches:
            wrapped = (wrappers[attr](orig) if attr in wrappers else self._wrap_run(orig, count=cls is interpreted))
            setattr(cls, attr, wrapped)
            self._patched.append((cls, attr, wrapped))
        unhook = _hook_launches(self._on_launch)
        try:
            yield self
        finally:
            if unhook is not None:
                unhook()
            for cls, attr, orig in patches:
                setattr(cls, attr, orig)

    def displaced(self) -> list[str]:
        """Marks for the counter's wrappers the call replaced (read before `active` ends): a launch through
        triton's own function again would be counted by the hook alone, its arguments unlogged."""
        return [f"triton's {cls.__qualname__}.{attr} was replaced during the call (the launch counter's wrapper)"
                for cls, attr, wrapped in self._patched if _type.__dict__["__dict__"].__get__(cls).get(attr) is not wrapped]

    def note_arguments(self, args: tuple, kwargs: dict[str, Any]) -> None:
        """The floating-point values among a launch's arguments (scalars, and members of tuples such as a
        constexpr tuple): a kernel's arguments are a channel for values computed on the host."""
        self.note_values((*args, *kwargs.values()))

    @property
    def floats(self) -> set[float | int]:
        """The distinct floats (and float-sized ints) handed to the call's launches."""
        return self.scalars.floats

    def note_values(self, values: Any) -> None:
        """Every scalar among `values`, logged to the launch under way (ScalarLog)."""
        self.scalars.add(values)

    def note_kernel(self, kernel: Any, args: tuple[Any, ...] = (), *, interpreted: bool) -> None:
        """What the kernel's body names, by Triton's compile rule (sandbox/kernel_rules.py): its breaks where no
        GPU compile refused them (interpreted, or the rule turned off), and its baked-in constants' numbers
        where they changed since its last launch (counted with the arguments). An interpreted kernel is judged
        in the function the interpreter runs for it, when its grid is set (sandbox/interpreted_kernels.py)."""
        if self.rules is None:
            return
        if interpreted and self.kernels is not None:
            self._launch_args = args
            self.kernels.launching = (kernel, self)
            return
        self._judge(self.rules.check(kernel, args), interpreted=interpreted)
        self.note_values(self.rules.baked())  # the constants the kernel reads: their other scalars
        self.scalars.add_literals(self.rules.literals())

    def judge_interpreted(self, kernel: Any, fn: Any, values: tuple[Any, ...] | None) -> None:
        """The rule applied, as the grid is set, to the function the interpreter's executor runs (`fn`) and to the
        arguments bound as its programs get them (defaults and the grid callable's changes included)."""
        runs = self.kernels.runs
        given = runs(kernel)
        run = fn or given
        values = self._launch_args if values is None else values
        breaks, numbers = self.rules.check(kernel, values, lambda k: run if k is kernel else runs(k))
        if fn is not None and fn is not given:
            breaks.append("the launch's executor runs another function than the one given to triton.jit")
        self._judge((breaks, numbers), interpreted=True)
        self.note_values((values, self.rules.baked()))
        self.scalars.add_literals(self.rules.literals())

    def note_break(self, why: str) -> None:
        """A break of the compile rule found while an interpreted launch runs."""
        self._judge(([why], []), interpreted=True)

    def note_baked(self, value: Any) -> None:
        """A compile-time function's result in an interpreted launch: counted with the launch's values."""
        self.note_values(value)

    @contextlib.contextmanager
    def host_code(self, *, mid_launch: bool = False) -> Iterator[None]:
        """Candidate code a launch runs on the host, judged as the call's own (DispatchRecorder.host_code); after
        it ran between a launch's programs, the names the kernels read must still hold what was judged."""
        rec, memory = self.recorder, self.memory
        if memory is not None:  # what the launch wrote so far with no store of its kernels is counted first
            memory.before_host_code()
        with self._range(self.range_name + HOST_CODE), \
                rec.host_code(mid_launch=mid_launch) if rec is not None else contextlib.nullcontext(), \
                self.watch.off() if self.watch is not None else contextlib.nullcontext():
            yield
        if memory is not None:  # what host code wrote the recorders judged
            memory.after_host_code()
        if mid_launch and self.rules is not None:
            self._judge((self.rules.rebound(), []), interpreted=True)

    def library_code(self) -> Any:
        """Triton's own host code run between a launch's programs (a compile-time function of triton.language):
        not the candidate's, so not recorded as its host code; watched where it runs (sandbox/launch_watch.py)."""
        return self.watch.library() if self.watch is not None else contextlib.nullcontext()

    def _host_side(self, fn: Any) -> Any:
        """`fn` (a grid callable, a pre-run hook) run as host code of the launch."""
        counter = self

        def host_side(*args: Any, **kwargs: Any) -> Any:
            with counter.host_code():
                out = fn(*args, **kwargs)
            # held until the launch has ended: dropped inside it, its finalizer would run where every write is the
            # launch's (red team 44's grid callable returned a list whose __del__ wrote the answer)
            counter._held.append(out)
            return out

        return host_side

    def _plain_grid(self, grid: Any) -> Any:
        """The grid as a tuple of ints, each member's own `__index__` run as host code of the launch (not inside
        it, where the recorder is paused); a grid callable's result likewise."""
        if callable(grid):
            host = self._host_side(grid)
            return lambda *args, **kwargs: self._plain_grid(host(*args, **kwargs))
        if isinstance(grid, (tuple, list)):
            with self.host_code():
                plain = tuple(operator.index(g) for g in grid)
            self.note_values(plain)  # the grid carries numbers too (tl.num_programs): logged with the arguments
            return plain
        return grid

    def _judge(self, found: tuple[list[str], list[float | int]], *, interpreted: bool) -> None:
        breaks, numbers = found
        if breaks and (interpreted or _rule_off()) and len(self.rule_breaks) < MAX_BREAKS:
            self.rule_breaks.extend(b for b in breaks if b not in self.rule_breaks)
            del self.rule_breaks[MAX_BREAKS:]
        self.scalars.add(tuple(numbers))

    def _on_launch(self, metadata: Any) -> None:
        # Only the driver's launcher, called through its wrapper, launches: a call of the hook from anywhere else
        # (the candidate's own code, a hook it chained) is none (red team 44 called it from a grid callable to
        # make each round's launches look entered another way), and a launch calls it once.
        if self._hook_counts == "none" or (self._hook_counts == "launcher" and not self._launching_now):
            return
        self._launching_now = False
        # `metadata` is triton's LazyDict: read its plain data only; `.get()` would run the kernel's own
        # launch_metadata function.
        data = getattr(metadata, "data", None)
        name = str(data.get("name", "kernel")) if isinstance(data, dict) else "kernel"
        self.launches[name] += 1
        self.paths.append(self._entry or "direct")
        _LOADED.add(name)

    @contextlib.contextmanager
    def _launching(self, args: tuple, kwargs: dict[str, Any], *, interpreted: bool = False,
                   made: Any = None) -> Iterator[tuple[tuple, dict[str, Any]]]:
        """The launch's window (recorder paused, memory armed, range open); yields the arguments to launch with:
        `made()`'s stand-ins where pointer arguments were read before (sandbox/launch_args.py)."""
        rec, memory = self.recorder, self.memory if interpreted else None
        values, armed = [*args, *kwargs.values()], False
        if rec is not None:
            rec.paused += 1
        self.ranges += 1
        try:
            with self._range(self.range_name):
                given = values
                try:
                    if made is not None:  # an argument that could not be read raises here, as the launch would
                        args, kwargs = made()
                        values = [*args, *kwargs.values()]
                finally:
                    if rec is not None:  # what the call handed over and what the launch gets: both checked
                        rec.launch_starts(values if values is given else [*given, *values])
                if memory is not None:
                    memory.arm(_tensors(values), self.scalars)
                    armed = True
                with self.quiet() if interpreted else contextlib.nullcontext(), self._watched(interpreted):
                    yield args, kwargs
        finally:
            if armed:
                memory.disarm()
            if rec is not None:
                rec.paused -= 1
                rec.launch_ends(values)
            self._held.clear()  # what host code returned dies here, its finalizers the call's own code

    @contextlib.contextmanager
    def _watched(self, interpreted: bool) -> Iterator[None]:
        """An interpreted launch's window, watched for the candidate's code (sandbox/launch_watch.py)."""
        if not interpreted:
            yield
            return
        self.in_window += 1
        enabled = _GC_ENABLED()
        _GC_DISABLE()  # no finalizer or weakref callback runs inside the launch: they run after it, recorded
        try:
            with self.watch.window(self.note_break) if self.watch is not None else contextlib.nullcontext():
                yield
        finally:
            if enabled:
                _GC_ENABLE()
            self.in_window -= 1

    @contextlib.contextmanager
    def _entered(self, entry: str) -> Iterator[None]:
        was, self._entry = self._entry, self._entry or entry  # the outermost entry names the path
        try:
            yield
        finally:
            self._entry = was

    def _read_pointers(self, args: tuple, kwargs: dict[str, Any], *, interpreted: bool) -> Any:
        """Arguments Triton would read through the candidate's code (pointers that are no plain tensor, scalar
        subclasses), read now as the launch's host code (sandbox/launch_args.py); None when there are none."""
        if not launch_args.pending([*args, *kwargs.values()]):
            return None
        with self.host_code():
            return launch_args.read(args, kwargs, interpreted=interpreted)

    def _wrap_run(self, run: Any, *, count: bool) -> Any:
        counter = self

        def counted_run(kernel: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
            if warmup:
                return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            with counter.host_code():
                why = launch_args.refused(kernel, kwargs)
            if why is not None:  # as a launch refuses what it cannot take, before anything of it runs
                raise TypeError(f"{why}: it would run inside the launch")
            name = str(getattr(getattr(kernel, "fn", None), "__name__", None) or getattr(kernel, "__name__", "kernel"))
            if count:  # interpreted: no launcher, so no launch hook; this is where it ends
                counter.launches[name] += 1
                counter.paths.append("interpreted")
            counter.scalars.start(f"{name}#{code_key(kernel)}")  # which kernel ran, by its code (one name, two kernels)
            counter.note_arguments(args, kwargs)
            counter.note_kernel(kernel, (*args, *kwargs.values()), interpreted=count)
            before, loads, t0 = _compiled(kernel), _LOADS[0], time.perf_counter()
            hooks = kernel.__dict__.get("pre_run_hooks") if hasattr(kernel, "__dict__") else None
            try:
                if isinstance(hooks, list) and hooks:
                    kernel.pre_run_hooks = [counter._host_side(h) for h in hooks]
                grid = counter._plain_grid(grid)
                made = counter._read_pointers(args, kwargs, interpreted=count)
                with counter._launching(args, kwargs, interpreted=count, made=made) as (args, kwargs), \
                        counter._entered("jit"):
                    return run(kernel, *args, grid=grid, warmup=warmup, **kwargs)
            finally:
                if isinstance(hooks, list) and hooks:
                    kernel.pre_run_hooks = hooks
                counter._launch_args = ()  # a finalizer on an argument runs now, not after the call's checks
                if counter.kernels is not None:
                    counter.kernels.launch_ended()
                # a compile is a new variant in triton's cache and a module loaded onto the device; under the
                # interpreter nothing compiles
                if not count and _compiled(kernel) > before and (_LOADS[0] > loads or not _LOADS_SEEN[0]):
                    counter.compile_s += time.perf_counter() - t0

        counted_run.__wrapped__ = run  # type: ignore[attr-defined]
        return counted_run

    def _wrap_launcher(self, call: Any) -> Any:
        """The driver's launcher, where every compiled launch ends: a launch entered there directly (FlagGems'
        LibEntry after a key's first call) has its kernel's arguments logged, as the JIT entry logs its own."""
        counter = self

        def logged_call(launcher: Any, *args: Any, **kwargs: Any) -> Any:
            # (gridX, gridY, gridZ, stream, function, kernel metadata, launch metadata, enter hook, exit hook,
            # the kernel's arguments...): triton 3.2 to 3.9
            if not counter._entry and len(args) >= _LAUNCHER_FIXED:
                counter.scalars.start(f"direct#{args[4]}")  # the loaded function's handle: one per kernel variant
                counter.note_arguments(args[_LAUNCHER_FIXED:], kwargs)
            counter._launching_now = True  # the one enter-hook call this launch makes is a launch (`_on_launch`)
            try:
                return call(launcher, *args, **kwargs)
            finally:
                counter._launching_now = False

        logged_call.__wrapped__ = call  # type: ignore[attr-defined]
        return logged_call

    def _wrap_bench(self, bench: Any) -> Any:
        """Triton's Autotuner benchmarking one config (FlagGems' LibTuner too): the call is a first call for its
        key, as one that compiled is (`benchmarked`)."""
        counter = self

        def noted_bench(tuner: Any, *args: Any, **kwargs: Any) -> Any:
            launches = counter.total
            try:
                return bench(tuner, *args, **kwargs)
            finally:  # a benchmark that launched nothing (a do_bench of the candidate's own: red team 44) is none
                counter.benchmarked |= counter.total > launches

        noted_bench.__wrapped__ = bench  # type: ignore[attr-defined]
        return noted_bench

    def _wrap_getitem(self, getitem: Any) -> Any:
        counter = self

        def ranged_getitem(kernel: Any, grid: Any) -> Any:
            runner = getitem(kernel, grid)

            def ranged_runner(*args: Any, **kwargs: Any) -> Any:
                counter.scalars.start(str(getattr(kernel, "name", "kernel")))
                counter.note_arguments(args, kwargs)
                made = counter._read_pointers(args, kwargs, interpreted=False)
                with counter._launching(args, kwargs, made=made) as (args, kwargs), counter._entered("grid"):
                    return runner(*args, **kwargs)

            return ranged_runner

        ranged_getitem.__wrapped__ = getitem  # type: ignore[attr-defined]
        return ranged_getitem


def _tensors(values: list[Any]) -> list[Any]:
    """The launch's arguments with the members of tuples (a tuple of tensors) and a (triton) descriptor's base."""
    out = []
    descriptor = launch_args.descriptor_class()
    for v in values:
        for x in v if type(v) in (tuple, list) else (v,):
            out.append(object.__getattribute__(x, "__dict__").get("base") if type(x) is descriptor else x)
    return out


def _rule_off() -> bool:
    """Triton's rule for kernel globals is turned off (TRITON_ALLOW_NON_CONSTEXPR_GLOBALS, or its knob)."""
    try:
        from triton import knobs
    except ImportError:
        return False
    return bool(getattr(knobs.compilation, "allow_non_constexpr_globals", False))


_LAUNCHER_FIXED = 9  # the launcher's arguments before the kernel's own


@functools.cache
def _gpu_visible() -> bool:
    """Whether torch sees a GPU (CUDA, ROCm or XPU): compiled launches can happen in this process."""
    import torch

    return any(getattr(torch, d, None) is not None and getattr(torch, d).is_available() for d in ("cuda", "xpu"))


@functools.cache
def _launcher_class() -> type | None:
    """The active GPU driver's launcher class (CudaLauncher, HIPLauncher), whose `__call__` every compiled launch
    ends in; None under the interpreter or without a GPU driver (read once per process: the device is fixed)."""
    if not _gpu_visible():
        return None
    try:
        from triton.runtime import driver

        cls = driver.active.launcher_cls
    except Exception:  # noqa: BLE001 - no driver for this machine: nothing compiled launches here
        return None
    return cls if isinstance(cls, type) and "__call__" in cls.__dict__ else None


def _autotuner_class() -> type | None:
    """Triton's Autotuner, where each config is benchmarked (`_bench`); None where it has no such method."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        return None
    return Autotuner if "_bench" in Autotuner.__dict__ else None


def _compiled_kernel_class() -> type | None:
    try:
        from triton.compiler.compiler import CompiledKernel
    except ImportError:
        return None
    return CompiledKernel if "__getitem__" in CompiledKernel.__dict__ else None
