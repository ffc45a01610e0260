"""Helpers for the evaluator's end-to-end tests: the example tasks/solutions and the cheating corpus."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_TASKS = ROOT / "examples" / "tasks.jsonl"
EXAMPLE_SOLUTIONS = ROOT / "examples" / "solutions"
CORPUS = Path(__file__).resolve().parent / "corpus"
_HEADER = re.compile(r"kgb-corpus:((?: \w+=\S+)+)")


@dataclass(frozen=True)
class CorpusEntry:
    """One cheating or crashing candidate and the verdict it must get."""

    name: str
    task_id: str
    expect: str  # the verdict of the layer the entry attacks (runtime evidence, isolation, ...)
    evidence: str | None
    code: str
    static: str | None = None  # the verdict when the static checks, an earlier layer, already catch it
    gpu: str | None = None  # the verdict on an accelerator, where its device evidence decides otherwise

    @property
    def first_verdict(self) -> str:
        """What a normal run (static checks on) must give."""
        return self.static or self.expect


def corpus() -> list[CorpusEntry]:
    """Every tests/corpus/*.py entry with its expectation from the header line."""
    out = []
    for p in sorted(CORPUS.glob("*.py")):
        text = p.read_text()
        m = _HEADER.search(text)
        assert m, f"{p}: missing '# kgb-corpus: task=... expect=...' header"
        kv = dict(item.split("=", 1) for item in m[1].split())
        out.append(CorpusEntry(p.stem, kv["task"], kv["expect"], kv.get("evidence"), text, kv.get("static"),
                              kv.get("gpu")))
    return out


def example_rows() -> list[dict[str, Any]]:
    """The example solutions as generation rows, candidate id 'example:<file stem>'."""
    from kernelgenbench.evaluator.solutions import task_id_from_file

    return [{"task_id": task_id_from_file(p), "code": p.read_text(), "candidate_id": f"example:{p.stem}"}
            for p in sorted(EXAMPLE_SOLUTIONS.glob("*.py"))]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Rows as JSON Lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def kgb_command(*args: str) -> list[str]:
    """The `kgb` command line (the installed script next to this interpreter)."""
    script = Path(sys.executable).parent / "kgb"
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-c", "from kernelgenbench.cli.main import main; main()", *args]


def run_kgb(*args: str, timeout: float = 300, static_checks: bool = True) -> subprocess.CompletedProcess:
    """Run `kgb ...` to completion; without `static_checks` the runtime layers alone judge (a candidate may get
    past the static checks, so what stands behind them is tested on its own)."""
    cmd = kgb_command(*args) if static_checks else [sys.executable, "-c", NO_STATIC_CHECKS, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


NO_STATIC_CHECKS = """
import sys
import kernelgenbench.evaluator.candidates as candidates
from kernelgenbench.cli.main import main
from kernelgenbench.evaluator.status import PASS
candidates.check_source = lambda code, filename="": PASS
sys.argv[0] = "kgb"
main()
"""


def task_rows(path: Path) -> list[dict[str, Any]]:
    """The candidate ('task') rows of a results file."""
    return [r for r in map(json.loads, path.read_text().splitlines()) if r["kind"] == "task"]
