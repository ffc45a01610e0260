"""The candidate's code running inside an interpreted launch, outside its kernels: named, as a break of the rule.

Under TRITON_INTERPRET=1 a launch is Python, and between its start and its end the recorders are paused: every
write there is the launch's (sandbox/launches.py). Triton's interpreter reaches objects of the candidate's in
that window: it rebuilds a tuple argument by its class, scans the kernel's globals and `triton.language` with
`inspect` (a `__class__` property, a module's `__getattr__`, an attribute's `__getattr__`), iterates
`pre_run_hooks` and `arg_names`, evaluates the kernel's defaults when it compiles the body; the collector may run
a `__del__`. Red team 47 computed the answer on the host in nine such places, each one a hook the worker had not
wrapped. Wrapping each one is a race with the next; this watches the window itself.

A profile function runs while an interpreted launch does, and judges every Python function that starts there by
its code's file: the candidate's own file, or any file outside the places Python and the packages installed
before the candidate's import live, is the candidate's code. Of that, the kernels' bodies the worker compiled for
the interpreter (sandbox/interpreted_kernels.py) may run; anything else is a break of Triton's compile rule (no
GPU runs host code inside a kernel launch). The host code a launch runs on purpose (a grid callable, a pre-run
hook, a compile-time function, the body's compile) runs with the watch off (`off`): the recorders judge it there.
A file name is a string, but a code object's can be set only through `__code__` or `compile`, which the static
checks refuse. A profile function sees Python frames only: what C code the candidate arranged writes (a partial of
builtins as a dunder, a weakref callback) is found by the launch's shadow instead (sandbox/launch_memory.py).
"""

from __future__ import annotations

import contextlib
import gc
import os
import site
import sys
from collections.abc import Callable, Iterable, Iterator
from types import CodeType, FrameType, ModuleType
from typing import Any


class LaunchWatch:
    """Watches interpreted launches for the candidate's code (`window`), off while the launch's host code runs."""

    def __init__(self, kernel_codes: Callable[[], Iterable[CodeType]]) -> None:
        self._roots = _trusted_roots()  # read before the candidate's import: what it adds later is its own
        self._candidate = ""
        self._kernel_codes = kernel_codes
        self._trusted: dict[int, CodeType] = {}  # by id, holding the code: an id is reused only once it is freed
        self._kernels: dict[int, CodeType] = {}
        self._note: Callable[[str], None] | None = None
        self._named: set[str] = set()
        self._phase = ""  # "watched" inside a window, "programs" while its programs run
        self._split = False  # triton's interpreter shows where the programs end (`install`)
        self._library = False  # triton's own host code runs between the programs, watched (`library`)
        # one bound method each: every attribute read makes a new one, and `is` compares them
        self._fn = self._profile
        self._collecting = self._collection

    def install(self) -> dict[str, tuple[Any, str]]:
        """See where a launch's programs end in triton's interpreter (it restores its patches of the language
        there); the replaced attribute, to be watched for replacement ({} without such an interpreter: then the
        programs are watched whole)."""
        try:
            from triton.runtime import interpreter

            scope = interpreter._LangPatchScope
            restore = scope.restore
        except (ImportError, AttributeError):
            return {}
        watch = self

        def ended_restore(self: Any) -> Any:
            watch._programs_ended()
            return restore(self)

        scope.restore = ended_restore
        self._split = True
        return {"triton._LangPatchScope.restore": (scope, "restore")}

    def watch_file(self, path: str) -> None:
        """The candidate's source file (its code is the candidate's wherever that file lies)."""
        self._candidate = os.path.realpath(path)

    @contextlib.contextmanager
    def window(self, note: Callable[[str], None]) -> Iterator[None]:
        """An interpreted launch: each function of the candidate's that starts in it, but its kernels, is `note`d."""
        outer, prev = (self._note, self._phase, self._named), sys.getprofile()
        self._note, self._phase, self._named = note, "watched", set()
        sys.setprofile(self._fn)
        try:
            yield
        finally:
            if self._phase == "programs":  # ended by an error before triton restored its patches
                self._drop_collecting()
            elif sys.getprofile() is not self._fn:
                note("the launch's profile function was replaced inside the launch")
            sys.setprofile(prev)
            self._note, self._phase, self._named = outer

    def programs(self, scopes: Iterable[dict[str, Any]]) -> None:
        """The launch's programs start (its grid is set). They run the kernels' bodies, whose rule was judged, and
        are not watched, so that each costs no more; what they reach of the candidate's was reached, watched,
        before: the window's start read `triton.language`, the rule the names the bodies read, and this reads
        the module globals (`scopes`) of every JIT function the rule judged as a device function's call does
        (triton's `_patch_lang` asks of each whether it is a module). A collection (a `__del__`) is watched;
        after host code (a compile-time function) the rest of the launch is (`off`): it could stage anything."""
        if self._phase != "watched" or not self._split:
            return
        languages = _languages()
        for scope in scopes:
            for value in list(scope.values()):
                # as triton's `_patch_lang` asks: a `__class__` property, a module class's `__eq__` run here, watched
                if isinstance(value, ModuleType):
                    value in languages  # noqa: B015 - compared for what the comparison runs
        self._phase = "programs"
        gc.callbacks.append(self._collecting)
        sys.setprofile(None)

    @contextlib.contextmanager
    def off(self) -> Iterator[None]:
        """Host code the launch runs on purpose (recorded as the call's own): not watched. Run between the
        programs, the rest of the launch is watched whole."""
        prev = sys.getprofile()
        sys.setprofile(None)
        try:
            yield
        finally:
            if self._phase == "programs":
                self._programs_ended()
            else:
                sys.setprofile(prev)

    @contextlib.contextmanager
    def library(self) -> Iterator[None]:
        """Triton's own host code between the programs (`tl.sum`'s compile-time dtype pick, a library device
        function's compile): watched where it runs, and the programs stay unwatched after it (it stages nothing of
        the candidate's: what it reaches of the candidate's is named here)."""
        if self._phase != "programs" or self._library:  # outside the programs, or inside such code already
            yield
            return
        self._library = True
        sys.setprofile(self._fn)
        try:
            yield
        finally:
            self._library = False
            if self._phase == "programs":
                sys.setprofile(None)

    def _programs_ended(self) -> None:
        if self._phase == "programs":
            self._phase = "watched"
            self._drop_collecting()
            sys.setprofile(self._fn)

    def _collection(self, phase: str, info: dict[str, Any]) -> None:
        if self._phase == "programs":  # the finalizers a collection runs between its start and its stop
            sys.setprofile(self._fn if phase == "start" or self._library else None)

    def _drop_collecting(self) -> None:
        if self._collecting in gc.callbacks:
            gc.callbacks.remove(self._collecting)
        elif self._note is not None:
            self._note("the launch's collector callback was taken out inside the launch")

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if self._trusted.get(id(code)) is code or self._kernels.get(id(code)) is code:
            return
        if not self._foreign(code.co_filename):
            self._trusted[id(code)] = code
            return
        self._kernels = {id(c): c for c in _nested(self._kernel_codes())}
        if self._kernels.get(id(code)) is code:
            return
        name = getattr(code, "co_qualname", code.co_name)
        if self._note is not None and name not in self._named:
            self._named.add(name)
            self._note(f"{name} (line {frame.f_lineno} of {os.path.basename(code.co_filename)}) ran inside the "
                       "launch, outside its kernels: code no GPU launch runs")

    def _foreign(self, filename: str) -> bool:
        """Code from the candidate's file, or from a file outside Python's and the installed packages' places."""
        if filename.startswith("<"):  # frozen modules, code the standard library generated
            return False
        path = os.path.realpath(filename)
        return path == self._candidate or not path.startswith(self._roots)


def _languages() -> list[Any]:
    """The modules triton's `_patch_lang` compares each module global with (`triton.language` and its core)."""
    import triton.language as tl

    return [tl, tl.core]


def _nested(codes: Iterable[CodeType]) -> Iterator[CodeType]:
    """Each code object and those defined inside it (a kernel's nested functions, its comprehensions)."""
    todo = list(codes)
    while todo:
        code = todo.pop()
        yield code
        todo.extend(c for c in code.co_consts if isinstance(c, CodeType))


def _trusted_roots() -> tuple[str, ...]:
    """Where Python's library and the installed packages live, and the folders of the packages already imported
    (this package, torch, triton, numpy: an editable install lies outside site-packages)."""
    places = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *site.getsitepackages()}
    user = site.getusersitepackages()
    places.update([user] if isinstance(user, str) else [])
    for name in ("kernelgenbench", "torch", "triton", "numpy"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            places.add(os.path.dirname(module.__file__))
    places.update(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    return tuple(os.path.join(os.path.realpath(p), "") for p in places if p)
