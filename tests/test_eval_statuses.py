"""Every status the evaluator can give is documented, and the README names no status it cannot give."""

from __future__ import annotations

import re
from pathlib import Path

from kernelgenbench.evaluator.status import Status

README = Path(__file__).resolve().parent.parent / "README.md"


def _readme_status_line() -> str:
    text = README.read_text(encoding="utf-8")
    m = re.search(r"^- Statuses \(`evaluator/status\.py`\).*?(?=^- |^\S)", text, re.M | re.S)
    assert m, "README's evaluator section has no '- Statuses (`evaluator/status.py`)' item"
    return m.group(0)


def test_the_readme_lists_exactly_the_statuses_of_status_py():
    named = set(re.findall(r"`([a-z_]+)`", _readme_status_line()))
    assert named == {s.value for s in Status}
