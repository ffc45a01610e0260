"""The trust boundary: the package that runs inside a candidate's process imports nothing that judges."""

from __future__ import annotations

import json
import subprocess
import sys

# What decides a verdict, writes results or reads the dataset: never loaded in a worker by the sandbox.
JUDGING = ("kernelgenbench.evaluator.judge", "kernelgenbench.evaluator.compare", "kernelgenbench.evaluator.runner",
           "kernelgenbench.evaluator.dispatch_guard", "kernelgenbench.evaluator.static_checks",
           "kernelgenbench.evaluator.summary", "kernelgenbench.evaluator.report", "kernelgenbench.evaluator.checks",
           "kernelgenbench.evaluator.supervisor", "kernelgenbench.dataset.load",
           # the runner's parts (evaluator/runner.py was split by responsibility)
           "kernelgenbench.evaluator.candidates", "kernelgenbench.evaluator.rounds",
           "kernelgenbench.evaluator.context", "kernelgenbench.evaluator.results")


def test_sandbox_imports_no_judging_code():
    code = ("import importlib, json, pkgutil, sys, kernelgenbench.sandbox as s\n"
            "for m in pkgutil.iter_modules(s.__path__): importlib.import_module('kernelgenbench.sandbox.' + m.name)\n"
            "print(json.dumps(sorted(n for n in sys.modules if n.startswith('kernelgenbench'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert "kernelgenbench.sandbox.worker" in loaded
    assert not loaded & set(JUDGING), sorted(loaded & set(JUDGING))
