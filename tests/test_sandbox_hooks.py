"""sandbox/hooks.py: what a candidate installs to run its code outside its call is refused or taken out again,
and named. Run in a fresh interpreter: installing the hooks changes the whole process, as in the worker."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = r"""
import gc, signal, sys, threading
import torch
from kernelgenbench.sandbox.hooks import InterpreterHooks

hooks = InterpreterHooks()
hooks.install()
assert not gc.isenabled()
hooks.open()
assert gc.isenabled()
# --- what a candidate does during its call ---
ran = []
sys.addaudithook(lambda event, args: ran.append(event))
torch.autograd._enable_record_function(False)
torch._C._autograd._enable_record_function(False)
signal.signal(signal.SIGALRM, lambda *a: ran.append("alarm"))
signal.setitimer(signal.ITIMER_REAL, 30)
gc.callbacks.append(lambda phase, info: ran.append("gc"))
sys.settrace(lambda *a: None)
threading.excepthook = lambda args: None
# --- the call returns ---
marks = hooks.close()
print("\n".join(marks))
assert not gc.isenabled()
assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
assert not gc.callbacks and sys.gettrace() is None and threading.excepthook is threading.__excepthook__
open("/dev/null").close()  # an audited event: the refused hook never runs
gc.collect()
assert ran == [], ran
assert hooks.close() == []  # each mark once
assert hooks.audit_refused == 1
# record_function stays on: a profiler still sees ops
with torch.autograd.profiler.profile() as prof:
    torch.ones(3) + 1
assert any(e.name == "aten::add" for e in prof.function_events)
"""


def test_hooks_a_candidate_installs_are_refused_or_taken_out_and_named():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    marks = proc.stdout
    assert "audit" not in marks  # refused and never run: no evidence (libraries try it too)
    for expected in ("record_function off (2 time(s)): refused",
                     "interval timer was left armed", "handler for SIGALRM", "gc callback", "trace or profile function",
                     "threading.excepthook was replaced"):
        assert expected in marks, (expected, marks)


DOCUMENTED = r"""
import logging, warnings
import torch
from kernelgenbench.sandbox.hooks import InterpreterHooks

own_show, own_factory = warnings.showwarning, logging.getLogRecordFactory()
hooks = InterpreterHooks()
hooks.install()
hooks.open()
# --- the candidate's import sets documented hooks (logging.captureWarnings sets showwarning) ---
seen = []
warnings.showwarning = lambda *a, **k: seen.append("candidate")
logging.setLogRecordFactory(lambda *a, **k: seen.append("factory") or own_factory(*a, **k))
assert hooks.close() == []  # allowed: no mark
# --- the worker's own code: a warning torch raises here reaches the standard library's hook, not the candidate's
assert warnings.showwarning is own_show and logging.getLogRecordFactory() is own_factory
with warnings.catch_warnings():
    warnings.simplefilter("always")
    warnings.warn("raised while the worker packs")
assert seen == [], seen
# --- the next call: the candidate's hooks are its own again
hooks.open()
with warnings.catch_warnings():
    warnings.simplefilter("always")
    warnings.warn("raised by the candidate")
assert seen == ["candidate"], seen
hooks.close()
assert warnings.showwarning is own_show
"""


def test_documented_hooks_are_the_candidates_only_while_its_code_runs():
    proc = subprocess.run([sys.executable, "-c", DOCUMENTED], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]


QUIET = r"""
import io, sys, warnings
from kernelgenbench.sandbox.hooks import InterpreterHooks

hooks = InterpreterHooks()
hooks.install()
hooks.open()
ran = []


class Writer(io.StringIO):
    def write(self, text):
        ran.append("stdout")
        return len(text)


sys.stdout = Writer()
warnings.showwarning = lambda *a, **k: ran.append("showwarning")
warnings.simplefilter("always")
with hooks.quiet():  # an interpreted launch: a kernel's print, numpy's warnings
    print("from the kernel")
    warnings.warn("divide by zero")
assert ran == [], ran
print("after the launch")
warnings.warn("the candidate's own")
assert set(ran) == {"stdout", "showwarning"}, ran  # outside the launch the hooks are the candidate's
sys.settrace(lambda *a: None)
with hooks.quiet():
    assert sys.gettrace() is None  # a trace function would run at every line of the kernel
assert sys.gettrace() is not None
sys.settrace(None)  # taken out before the call ends: still named
marks = hooks.close()
sys.stdout = sys.__stdout__
print("\n".join(marks))
"""


def test_an_interpreted_launch_runs_none_of_the_candidates_hooks():
    """Red team 25 computed inside launches from a print hook and a warnings hook (recorder paused there)."""
    proc = subprocess.run([sys.executable, "-c", QUIET], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "trace, profile or monitoring function was active during a Triton launch" in proc.stdout
