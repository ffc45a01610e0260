"""The launch watch (sandbox/launch_watch.py): the candidate's code that starts inside an interpreted launch is
named, but the kernels' own bodies and the host code the launch runs on purpose; while the programs run, only a
device function's call and a collection are watched."""

from __future__ import annotations

import gc
import importlib.util
import json
import sys

import pytest

from kernelgenbench.sandbox.launch_watch import LaunchWatch

CANDIDATE = '''
class Cycle:
    def __init__(self):
        self.me = self

    def __del__(self):
        pass


def kernel_body():
    return [i for i in range(2)]


def payload():
    return 1


def in_programs():
    return 2


def after_programs():
    return 3


def host_code():
    return 4


class Disguised:
    @property
    def __class__(self):
        return int


DISGUISED = Disguised()
'''


@pytest.fixture
def candidate(tmp_path):
    path = tmp_path / "candidate.py"
    path.write_text(CANDIDATE)
    spec = importlib.util.spec_from_file_location("kgb_watch_candidate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module


@pytest.fixture
def interpreter_restored():
    interpreter = pytest.importorskip("triton.runtime.interpreter")
    saved = interpreter._patch_lang, interpreter._LangPatchScope.restore
    yield interpreter
    interpreter._patch_lang, interpreter._LangPatchScope.restore = saved


def _names(notes):
    return [n.split(" (line", 1)[0] for n in notes]


def test_the_candidates_code_in_a_window_is_named_but_its_kernels_and_its_host_code(candidate):
    path, mod = candidate
    watch = LaunchWatch(lambda: [mod.kernel_body.__code__])
    watch.watch_file(str(path))
    notes: list[str] = []
    with watch.window(notes.append):
        mod.kernel_body()  # a kernel's body, and the comprehension inside it
        json.dumps({"a": 1})  # the standard library's code
        with watch.off():
            mod.host_code()
        mod.payload()
        mod.payload()
    assert _names(notes) == ["payload"]
    assert "candidate.py" in notes[0] and "ran inside the launch" in notes[0]
    mod.after_programs()  # outside any window: nothing
    assert _names(notes) == ["payload"]


def test_while_programs_run_only_collections_are_watched_and_host_code_watches_the_rest(candidate,
                                                                                         interpreter_restored):
    path, mod = candidate
    watch = LaunchWatch(lambda: [])
    assert watch.install()  # triton's interpreter shows where the programs end
    watch.watch_file(str(path))
    notes: list[str] = []
    with watch.window(notes.append):
        watch.programs([vars(mod)])  # the globals a device function's call reads: a `__class__` property runs
        mod.in_programs()  # a program's own work is not watched (the kernel rule judged the bodies)
        mod.Cycle()
        gc.collect()  # but a __del__ a collection runs is
        interpreter_restored._LangPatchScope().restore()  # triton restores its patches: the programs ended
        mod.after_programs()
    assert _names(notes) == ["Disguised.__class__", "Cycle.__del__", "after_programs"]
    assert gc.callbacks.count(watch._collecting) == 0
    notes.clear()
    with watch.window(notes.append):
        watch.programs([])
        with watch.off():  # a compile-time function between the programs: it could stage anything
            mod.host_code()
        mod.in_programs()
    assert _names(notes) == ["in_programs"]


def test_a_profile_function_replaced_in_the_window_is_named(candidate):
    path, mod = candidate
    watch = LaunchWatch(lambda: [])
    watch.watch_file(str(path))
    notes: list[str] = []
    before = sys.getprofile()
    with watch.window(notes.append):
        sys.setprofile(None)
    assert notes == ["the launch's profile function was replaced inside the launch"]
    assert sys.getprofile() is before


def test_triton_code_between_the_programs_is_watched_where_it_runs_and_the_programs_stay_unwatched(
        candidate, interpreter_restored):
    path, mod = candidate
    watch = LaunchWatch(lambda: [])
    assert watch.install()
    watch.watch_file(str(path))
    notes: list[str] = []
    with watch.window(notes.append):
        watch.programs([])
        with watch.library():  # tl.sum's compile-time dtype pick, per program: whatever it reaches is named
            mod.payload()
        mod.in_programs()  # after it the programs run on, unwatched
        with watch.library():
            mod.Cycle()
            gc.collect()  # a collection inside it ends with the library code still watched
            mod.host_code()
        mod.in_programs()
    assert _names(notes) == ["payload", "Cycle.__init__", "Cycle.__del__", "host_code"]


def test_triton_code_nested_in_triton_code_leaves_the_outer_watched(candidate, interpreter_restored):
    path, mod = candidate
    watch = LaunchWatch(lambda: [])
    assert watch.install()
    watch.watch_file(str(path))
    notes: list[str] = []
    with watch.window(notes.append):
        watch.programs([])
        with watch.library():
            with watch.library():  # a compile-time function of triton's calling another
                pass
            mod.payload()
        mod.in_programs()
    assert _names(notes) == ["payload"]
