"""Honest kernels written the way real wrappers are (tests/honest/: a false-positive hunt's candidates that
the static and runtime checks once refused): every one passes end to end on CPU."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from eval_helpers import EXAMPLE_TASKS, run_kgb, task_rows, write_jsonl

HONEST = Path(__file__).resolve().parent / "honest"


SHARDS = 3  # one `kgb eval` per shard: each well inside its time limit on two cores


@pytest.mark.parametrize("shard", range(SHARDS))
def test_honest_idioms_pass(tmp_path, shard):
    rows = []
    for p in sorted(HONEST.glob("*.py")):
        m = re.match(r"# kgb-honest: task=(\S+)", p.read_text())
        assert m, f"{p}: missing '# kgb-honest: task=...' header"
        rows.append({"task_id": m.group(1), "code": p.read_text(), "candidate_id": p.stem})
    assert len(rows) >= 8
    rows = rows[shard::SHARDS]
    out = tmp_path / "results.jsonl"
    proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(write_jsonl(tmp_path / "s.jsonl", rows)),
                   "--device", "cpu", "--workers", "2", "--timeout", "60", "--seed", "3", "--out", str(out),
                   timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    failed = {r["candidate_id"]: (r["status"], r["evidence"][:300]) for r in task_rows(out) if r["status"] != "passed"}
    assert not failed
