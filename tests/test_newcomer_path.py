"""What a new user meets first: defaults that agree, the Python API in a plain script, progress as candidates
are judged, results files that are never silently replaced, one-line errors before any work, torn rows."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from dataset_fixtures import all_records, write_by_source
from dataset_fixtures import write_jsonl as write_records
from eval_helpers import EXAMPLE_SOLUTIONS, EXAMPLE_TASKS, ROOT, kgb_command, run_kgb

import kernelgenbench
from kernelgenbench.dataset.build import build_dataset
from kernelgenbench.errors import DatasetError, KgbError
from kernelgenbench.evaluator.report import collect, read_results, render_text
from kernelgenbench.evaluator.runner import ResultsWriter
from kernelgenbench.evaluator.status import Status


def _add_record() -> dict:
    return next(r for r in map(json.loads, EXAMPLE_TASKS.read_text().splitlines()) if r["id"] == "aten/add.Tensor")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("newcomer")
    build_dataset(write_by_source(tmp / "records", all_records()), tmp / "ds")
    return tmp / "ds"


# --- defaults agree (item 8) ---

def test_no_config_means_ms_for_a_folder_and_every_record_for_a_jsonl(built: Path, tmp_path: Path) -> None:
    ms = [t.id for t in kernelgenbench.load_tasks(built, config="ms")]
    assert [t.id for t in kernelgenbench.load_tasks(built)] == ms
    path = write_records(tmp_path / "r.jsonl", all_records())
    assert len(kernelgenbench.load_tasks(path)) == len(all_records()) > len(ms)


def test_every_extractor_writes_a_file_by_default() -> None:
    from kernelgenbench.cli.main import extract_app

    command = typer.main.get_command(extract_app)
    for source in ("aten", "vllm", "cublas"):
        (out,) = [p for p in command.commands[source].params if p.name == "out"]
        assert out.default == f"{source}.jsonl"


def test_build_without_inputs_is_a_one_line_error() -> None:
    proc = run_kgb("build", "--out", "/tmp/kgb-newcomer-never-written", timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("kgb: error: no task records given")
    assert not Path("/tmp/kgb-newcomer-never-written").exists()


# --- the Python API in a script without a __main__ guard (item 2) ---

def test_evaluate_from_a_script_without_a_main_guard(tmp_path: Path) -> None:
    script = tmp_path / "score.py"
    script.write_text(
        "import kernelgenbench\n"
        f"code = open({str(EXAMPLE_SOLUTIONS / 'aten__add.Tensor.py')!r}).read()\n"
        f"results = kernelgenbench.evaluate({{'aten/add.Tensor': [code]}}, dataset={str(EXAMPLE_TASKS)!r}, "
        "device='cpu', rounds=1)\n"
        "print('STATUS', results[0].status.value, results[0].evidence[:300])\n")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the script ran once (no worker re-imported it) and the candidate was judged on its own merits
    assert proc.stdout.count("STATUS") == 1 and "STATUS passed" in proc.stdout, proc.stdout + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr


# --- results files (items 3, 4) ---

def test_existing_results_are_refused_unless_resumed_or_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text('{"kind": "task"}\n')
    with pytest.raises(KgbError, match="already exists; pass --resume to continue it, --overwrite"):
        kernelgenbench.evaluate({"aten/nope": "x = 1\n"}, tasks=[_add_record()], device="cpu", out=out)
    assert out.read_text() == '{"kind": "task"}\n'
    (res,) = kernelgenbench.evaluate({"aten/nope": "x = 1\n"}, tasks=[_add_record()], device="cpu", out=out,
                                     overwrite=True)
    # a candidate for a task outside the dataset gets no verdict (item 9)
    assert res.status is Status.NOT_IN_DATASET and "not in the dataset" in res.evidence
    assert [json.loads(x)["status"] for x in out.read_text().splitlines()] == ["not_in_dataset"]


def test_unwritable_out_fails_in_one_line_before_the_dataset_is_read(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(KgbError, match="cannot be written"):
        # the dataset does not exist either: the results file is checked first, before any work
        kernelgenbench.evaluate({"aten/add.Tensor": "x"}, dataset=tmp_path / "nope", out=blocker / "r.jsonl")
    with pytest.raises(KgbError, match="is a folder"):
        kernelgenbench.evaluate({"aten/add.Tensor": "x"}, dataset=tmp_path / "nope", out=tmp_path)
    proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(EXAMPLE_SOLUTIONS),
                   "--device", "cpu", "--out", str(blocker / "r.jsonl"), timeout=300)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-3000:]
    assert "cannot be written" in proc.stderr


def test_a_damaged_parquet_file_is_a_one_line_error(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "ds"
    shutil.copytree(built, copy)
    (part,) = (copy / "ms").glob("*.parquet")
    data = bytearray(part.read_bytes())
    mid = len(data) // 2
    data[mid - 200: mid + 200] = b"\xff" * 400  # a corrupted page
    part.write_bytes(bytes(data))
    with pytest.raises(DatasetError, match="a data file cannot be read") as info:
        kernelgenbench.load_tasks(copy)
    assert "\n" not in str(info.value)
    proc = run_kgb("prompt", "aten/add.Tensor", "--dataset", str(copy), timeout=300)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr[-3000:]


def test_a_torn_last_row_is_cut_on_resume_and_reports_read_past_old_ones(tmp_path: Path) -> None:
    good = {"kind": "task", "task_id": "aten/a", "candidate_id": "c0", "status": "passed"}
    out = tmp_path / "r.jsonl"
    out.write_text(json.dumps(good) + "\n" + '{"kind": "task", "task_id": "aten/b", "candi')
    ResultsWriter(out).write({**good, "candidate_id": "c1"})
    lines = out.read_text().splitlines()
    assert [json.loads(x)["candidate_id"] for x in lines] == ["c0", "c1"]  # no torn line left mid-file
    # a file an older version left with a torn row mid-file still reports
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps(good) + "\n" + '{"kind": "ta\n' + json.dumps({**good, "candidate_id": "c1"}) + "\n")
    torn: list[int] = []
    assert [c.candidate_id for c in collect(read_results(old, torn))] == ["c0", "c1"]
    assert torn == [2]  # left out, and said so


# --- kgb eval: progress as it goes, and refusal to replace (item 3) ---

@pytest.mark.slow
def test_kgb_eval_prints_a_line_per_candidate_as_it_is_judged(tmp_path: Path) -> None:
    sols = tmp_path / "sols"
    sols.mkdir()
    for name in ("aten__add.Tensor.py", "aten__mul.Tensor.py"):
        (sols / name).write_text((EXAMPLE_SOLUTIONS / name).read_text())
    (sols / "aten__mul.Tensor.py").write_text("import triton\n\n\ndef wrong_name(a, b):\n    return a\n")
    out = tmp_path / "r.jsonl"
    args = ["eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols), "--device", "cpu", "--rounds", "1",
            "--out", str(out)]
    proc = subprocess.Popen(kgb_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stderr is not None
    first = proc.stderr.readline()
    seen_at = time.monotonic()
    rest_err = proc.stderr.read()
    proc.wait(timeout=600)
    ended_at = time.monotonic()
    assert proc.returncode == 0, rest_err[-3000:]
    assert first.startswith("PASS passed") and "aten/add.Tensor [aten__add.Tensor]" in first
    assert ended_at - seen_at > 0.5  # printed while the second candidate was still being judged
    (line,) = [x for x in rest_err.splitlines() if "aten/mul.Tensor" in x]
    assert line.startswith("FAIL missing_entry_point") and "'mul_Tensor'" in line  # names the function (item 9)
    before = out.read_text()
    again = run_kgb(*args, timeout=300)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "--resume" in again.stderr
    assert out.read_text() == before
    resumed = run_kgb(*args, "--resume", timeout=300)
    assert resumed.returncode == 0 and out.read_text() == before  # nothing left to do, nothing replaced
    assert "statuses [all]: passed 1, missing_entry_point 1" in resumed.stdout
    assert render_text(collect(read_results(out))).count("aten/") >= 2  # the per-task table


def test_workers_load_the_evaluators_package_whatever_the_working_directory(tmp_path: Path) -> None:
    # Run from a folder holding another `kernelgenbench` (a checkout next to an installed package): the
    # workers must run the evaluator's code, not that folder's.
    shadow = tmp_path / "kernelgenbench" / "sandbox"
    shadow.mkdir(parents=True)
    (shadow.parent / "__init__.py").write_text("")
    (shadow / "__init__.py").write_text("")
    (shadow / "worker.py").write_text("import os\n\n\ndef main(*args, **kwargs):\n    os._exit(3)  # not the real worker\n")
    sols = tmp_path / "sols"
    sols.mkdir()
    (sols / "aten__add.Tensor.py").write_text((EXAMPLE_SOLUTIONS / "aten__add.Tensor.py").read_text())
    out = tmp_path / "r.jsonl"
    proc = subprocess.run(kgb_command("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols),
                                      "--device", "cpu", "--rounds", "1", "--out", str(out)),
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = [r for r in map(json.loads, out.read_text().splitlines()) if r["kind"] == "task"]
    assert row["status"] == "passed", row["evidence"][:2000]
