"""End to end on CPU (Triton's interpreter): `kgb eval` passes every example kernel, catches every corpus
entry with its status, and a run killed half-way resumes without redoing finished candidates."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from eval_helpers import EXAMPLE_TASKS, corpus, example_rows, kgb_command, run_kgb, task_rows, write_jsonl


def test_examples_pass_and_corpus_is_caught(tmp_path):
    entries = corpus()
    rows = example_rows() + [{"task_id": e.task_id, "code": e.code, "candidate_id": f"corpus:{e.name}"} for e in entries]
    sols = write_jsonl(tmp_path / "solutions.jsonl", rows)
    out = tmp_path / "results.jsonl"
    # A fixed seed: on some draws the bf16 examples land a few ulps off under the interpreter (whose bf16
    # rounding differs from a GPU's), which is the interpreter's caveat, not the verdict under test. Not 0:
    # corpus/precompute_seed0 precomputes the answers of base seed 0 and would pass there.
    # ~330 candidates on two cores; the launch watch (sandbox/launch_watch.py) costs each interpreted launch's
    # set-up, and the corpus's bit-by-launch candidates make hundreds of launches per call
    proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols), "--device", "cpu",
                   "--workers", "2", "--timeout", "60", "--memory-gib", "2", "--seed", "1", "--out", str(out),
                   timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = {r["candidate_id"]: r for r in task_rows(out)}
    assert set(results) == {r["candidate_id"] for r in rows}
    examples = [r["candidate_id"] for r in rows if r["candidate_id"].startswith("example:")]
    assert len(examples) >= 12
    failed = {c: (results[c]["status"], results[c]["evidence"][:300]) for c in examples if results[c]["status"] != "passed"}
    assert not failed
    wrong = {}
    for e in entries:
        r = results[f"corpus:{e.name}"]
        if r["status"] != e.first_verdict or (e.evidence and not e.static and e.evidence not in r["evidence"]):
            wrong[e.name] = (e.first_verdict, r["status"], r["evidence"][:300])
    assert not wrong
    sources = {results[c]["source"] for c in examples}
    assert sources == {"aten", "vllm", "cublas"}
    # every row says where it ran; CPU performance workloads say why they were not timed
    all_rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["platform"]["vendor"] == "cpu" and r["platform"]["interpreter"] for r in all_rows)
    perf = [r for r in all_rows if r["kind"] == "workload" and r["purpose"] == "performance"
            and r["candidate_id"].startswith("example:")]
    assert perf and all(r["timing"] == {"available": False, "reason": "no accelerator: correctness only (Triton interpreter)"}
                        for r in perf)
    # a crash keeps its log excerpt, a printed fake verdict does not change the verdict
    assert "SIGSEGV" in results["corpus:segfault"]["evidence"]
    assert "PASSED" in results["corpus:fake_verdict"]["log_excerpt"]
    assert "acc aten" in proc.stdout and "pass@1" in proc.stdout


def test_runtime_layers_catch_what_the_static_checks_catch_first(tmp_path):
    entries = [e for e in corpus() if e.static]
    assert entries
    rows = [{"task_id": e.task_id, "code": e.code, "candidate_id": f"corpus:{e.name}"} for e in entries]
    sols = write_jsonl(tmp_path / "solutions.jsonl", rows)
    out = tmp_path / "results.jsonl"
    proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols), "--device", "cpu",
                   "--workers", "2", "--timeout", "30", "--out", str(out), static_checks=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = {r["candidate_id"]: r for r in task_rows(out)}
    wrong = {e.name: (e.expect, results[f"corpus:{e.name}"]["status"], results[f"corpus:{e.name}"]["evidence"][:300])
             for e in entries if results[f"corpus:{e.name}"]["status"] != e.expect
             or (e.evidence and e.evidence not in results[f"corpus:{e.name}"]["evidence"])}
    assert not wrong


def test_killed_run_resumes_without_redoing_finished_candidates(tmp_path):
    by_id = {r["candidate_id"]: r for r in example_rows()}
    hang = next(e for e in corpus() if e.name == "hang")
    first = [by_id[c] for c in ("example:aten__add.Tensor", "example:aten__mul.Tensor",
                                "example:cublas__cublasSscal_v2")]
    rest = [{"task_id": hang.task_id, "code": hang.code, "candidate_id": "corpus:hang"},
            by_id["example:vllm__rms_norm"]]
    sols = write_jsonl(tmp_path / "solutions.jsonl", first + rest)
    out = tmp_path / "results.jsonl"
    args = ["eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols), "--device", "cpu", "--seed", "0",
            "--out", str(out)]
    proc = subprocess.Popen(kgb_command(*args, "--timeout", "300"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline:
            if out.exists() and len([r for r in task_rows_safe(out)]) >= len(first):
                break
            time.sleep(0.5)
        time.sleep(1.0)  # now inside the hanging candidate
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the run, its forkserver and its workers
        proc.wait()
    before = task_rows_safe(out)
    assert [r["candidate_id"] for r in before] == [r["candidate_id"] for r in first]
    resumed = run_kgb(*args, "--resume", "--timeout", "3")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = task_rows(out)
    ids = [r["candidate_id"] for r in after]
    assert ids == [r["candidate_id"] for r in first + rest]  # each candidate exactly once, nothing redone
    assert after[: len(before)] == before
    assert len({r["seed"] for r in after}) == 1  # the resumed part reuses the seed the file was written with
    assert {r["candidate_id"]: r["status"] for r in after[len(before):]} == {"corpus:hang": "timeout",
                                                                          "example:vllm__rms_norm": "passed"}


def task_rows_safe(path):
    """Task rows of a results file that may end in a torn line."""
    rows = []
    for line in path.read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if r.get("kind") == "task":
            rows.append(r)
    return rows
