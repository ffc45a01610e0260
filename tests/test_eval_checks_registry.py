"""Each registered check is complete in its own module: a prompt line, and corpus files that get its status;
the prompt's "Forbidden" list is made of those lines and the static checks'."""

from __future__ import annotations

import pytest
from eval_helpers import corpus
from records import add_tensor_record

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks import REGISTRY
from kernelgenbench.evaluator.prompt import build_prompt
from kernelgenbench.evaluator.static_checks import forbidden

ENTRIES = {e.name: e for e in corpus()}


@pytest.mark.parametrize("check", REGISTRY, ids=lambda c: c.name)
def test_every_check_names_its_prompt_line_and_corpus_files_that_get_its_status(check):
    assert check.prompt.strip(), f"{check.name}: no prompt line"
    assert check.corpus, f"{check.name}: no corpus file"
    for stem in check.corpus:
        assert stem in ENTRIES, f"{check.name}: tests/corpus/{stem}.py does not exist"
        e = ENTRIES[stem]
        assert check.status.value in (e.expect, e.static, e.gpu), (
            f"{check.name}: tests/corpus/{stem}.py expects {e.expect} (static={e.static}, gpu={e.gpu}), "
            f"not {check.status.value}")


def test_each_corpus_file_is_owned_by_one_check():
    owners: dict[str, list[str]] = {}
    for check in REGISTRY:
        for stem in check.corpus:
            owners.setdefault(stem, []).append(check.name)
    assert not {stem: names for stem, names in owners.items() if len(names) > 1}


def test_check_names_are_unique():
    names = [c.name for c in REGISTRY]
    assert len(names) == len(set(names))


def test_the_prompt_forbids_what_every_check_and_the_static_checks_refuse():
    forbidden_lines = build_prompt(Task.from_dict(add_tensor_record())).forbidden
    expected = [c.prompt for c in REGISTRY] + list(forbidden().prompt)
    assert set(expected) <= set(forbidden_lines)
    assert len(forbidden_lines) == len(set(forbidden_lines))  # a line shared by several checks is shown once
