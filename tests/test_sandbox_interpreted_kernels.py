"""sandbox/interpreted_kernels.py: Triton's interpreter runs the function given to triton.jit, from its real `def`,
whatever the candidate does to the kernel object or the interpreter's cache, and the kernel rule judges that
function when the grid is set. Run in a fresh interpreter: the worker's install changes triton's classes."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = r'''
import torch, triton, triton.language as tl
from triton.runtime.interpreter import InterpretedFunction
from kernelgenbench.sandbox.interpreted_kernels import InterpretedKernels
from kernelgenbench.sandbox.kernel_rules import KernelRules
from kernelgenbench.sandbox.launches import LaunchCounter

kernels = InterpretedKernels()
watched = kernels.install()
_ANSWER = []

@triton.jit
def _store(out_ptr):
    _fake = """
def _store(out_ptr):
    tl.store(out_ptr, 2.0)
    return """
    tl.store(out_ptr, 1.0)

def _other(out_ptr):
    tl.store(out_ptr, 3.0)

@triton.jit
def _reads_answer(out_ptr):
    tl.store(out_ptr, _ANSWER[0])

out = torch.zeros(1)
_store[(1,)](out)
assert out.item() == 1.0, out  # the real def runs, not the one in the string
InterpretedFunction.rewritten_fn[_store.fn] = _other  # a seeded cache: not the worker's
_store.fn = _other  # a swapped function
try:
    _store.rewrite = lambda: _other
    raise SystemExit("an instance attribute shadowed rewrite")
except AttributeError:
    pass
_store[(1,)](out)
assert out.item() == 1.0, out
assert "triton.InterpretedFunction.rewrite" in watched

# The rule is applied when the grid is set: after the grid callable rebound the global the body reads.
counter = LaunchCounter(rules=KernelRules(), kernels=kernels)
def grid(meta):
    globals()["_ANSWER"] = [5.0]
    return (1,)
globals()["_ANSWER"] = tl.constexpr(0.0)
with counter.active():
    _reads_answer[grid](out)
assert out.item() == 5.0 and len(counter.rule_breaks) == 1 and "reads _ANSWER: a list" in counter.rule_breaks[0], \
    counter.rule_breaks
print("ok")
'''


def test_the_interpreter_runs_and_the_rule_judges_the_function_given_to_jit(tmp_path):
    script = tmp_path / "kernels.py"  # a file: the interpreter rewrites a kernel from its source
    script.write_text(SCRIPT)
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


def test_tritons_own_compile_time_code_runs_in_place_and_the_candidates_as_recorded_host_code():
    import triton.language.standard as standard

    from kernelgenbench.sandbox.interpreted_kernels import _compile_time_code

    class Counter:  # the two places host code inside a launch can run (sandbox/launches.py LaunchCounter)
        def library_code(self):
            return "in place, watched"

        def host_code(self, *, mid_launch=False):
            return f"recorded, mid_launch={mid_launch}"

    def _pick_sum_dtype(in_dtype, dtype):  # the candidate's, named as triton's
        return dtype

    picks = standard._pick_sum_dtype  # tl.sum's, called once per program by the interpreter
    assert _compile_time_code(Counter(), picks.fn) == "in place, watched"
    assert _compile_time_code(Counter(), standard.sum.fn) == "in place, watched"  # a library device function
    assert _compile_time_code(Counter(), _pick_sum_dtype) == "recorded, mid_launch=True"
    assert _compile_time_code(Counter(), print) == "recorded, mid_launch=True"
