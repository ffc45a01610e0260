"""What a check is, and how the registry judges one call's report."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.status import PASS, Status, Verdict
from kernelgenbench.sandbox.protocol import CallReport

# The judge: the task and the worker's report of one call in, the first piece of evidence out (None: clean).
Judge = Callable[[Task, CallReport], "tuple[Status, str] | str | None"]


@dataclass(frozen=True)
class Check:
    """One check: where its evidence is collected, how it is judged, what it is called in results and prompts."""

    name: str
    status: Status
    collector: str  # the module of kernelgenbench.sandbox that gathers its evidence
    judge: Judge
    prompt: str = ""  # its line in the prompt's "Forbidden" list (evaluator/prompt.py); checks of one rule share it
    corpus: tuple[str, ...] = ()  # tests/corpus/*.py stems that must get this status


def judge_report(checks: Iterable[Check], task: Task, report: CallReport,
                 skip: frozenset[str] = frozenset()) -> Verdict:
    """The first check that fires decides; PASS when none does. `skip`: checks that do not apply to this call."""
    for check in checks:
        if check.name in skip:
            continue
        hit = check.judge(task, report)
        if hit is None:
            continue
        if isinstance(hit, tuple):
            return Verdict(*hit)
        return Verdict(check.status, hit)
    return PASS
