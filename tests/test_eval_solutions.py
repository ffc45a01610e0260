"""Solutions: the file-name rule, JSONL rows, numbering and errors."""

from __future__ import annotations

import json

import pytest

from kernelgenbench.errors import CandidateError
from kernelgenbench.evaluator.solutions import load_solutions, task_file_name, task_id_from_file


def test_file_name_rule_round_trips():
    for tid in ("aten/add.Tensor", "aten/_softmax", "vllm/rms_norm", "cublas/cublasSgemm_v2"):
        name = task_file_name(tid)
        assert "/" not in name
        from pathlib import Path

        assert task_id_from_file(Path(name)) == tid
    assert task_file_name("aten/add.Tensor") == "aten__add.Tensor.py"


def test_directory(tmp_path):
    (tmp_path / "aten__add.Tensor.py").write_text("x = 1\n")
    (tmp_path / "vllm__rms_norm.py").write_text("y = 2\n")
    (tmp_path / "_helper.py").write_text("")
    cands = load_solutions(tmp_path)
    assert [(c.task_id, c.candidate_id) for c in cands] == [("aten/add.Tensor", "aten__add.Tensor"),
                                                            ("vllm/rms_norm", "vllm__rms_norm")]
    (tmp_path / "badname.py").write_text("")
    with pytest.raises(CandidateError, match="badname.py: file name does not follow"):
        load_solutions(tmp_path)


def test_jsonl_rows_numbered_per_task_with_metadata(tmp_path):
    p = tmp_path / "s.jsonl"
    rows = [{"task_id": "aten/mm", "code": "a", "model": "m1", "tokens": 10},
            {"task_id": "aten/mm", "code": "b"},
            {"task_id": "vllm/rms_norm", "code": "c", "candidate_id": "mine"}]
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    cands = load_solutions(p)
    assert [c.candidate_id for c in cands] == ["aten/mm#0", "aten/mm#1", "mine"]
    assert cands[0].model == "m1" and cands[0].tokens == 10 and cands[1].tokens is None


def test_jsonl_errors_name_the_line(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text('{"task_id": "aten/mm", "code": "a"}\n{"task_id": "aten/mm"}\n')
    with pytest.raises(CandidateError) as e:
        load_solutions(p)
    assert str(e.value) == f"{p}:2: a solution row needs string fields 'task_id' and 'code'"
    p.write_text('{"task_id": "aten/mm", "code": "a", "candidate_id": "x"}\n{"task_id": "aten/mm", "code": "b", "candidate_id": "x"}\n')
    with pytest.raises(CandidateError, match="duplicate candidate_id 'x' for task aten/mm"):
        load_solutions(p)
    with pytest.raises(CandidateError, match="no such solutions directory or JSONL file"):
        load_solutions(tmp_path / "missing")
