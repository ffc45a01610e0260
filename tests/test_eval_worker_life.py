"""A worker's life as the evaluator sees it: the worker holds none of the evaluator's pipes (the forkserver's
"alive" pipe, the resource tracker's), its liveness is asked of its own pid, a worker gone with workloads
left never passes, and a candidate's log is read from its end only.

Red team 3 found these: forkserver_kill_skip ended the shared forkserver, after which every worker it had
started read as dead and its remaining workloads were skipped (forkserver_victim, failing, passed beside it);
resource_tracker_unlink had root unlink a /dev/shm name; log_sparse_bomb made the evaluator read a 2 GiB
sparse log. Each runs on CPU (Triton's interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc

import pytest
from eval_helpers import CORPUS, EXAMPLE_SOLUTIONS, EXAMPLE_TASKS, run_kgb, task_rows, write_jsonl

from kernelgenbench.evaluator.supervisor import read_tail

SHM_VICTIM = "/dev/shm/kgb_corpus_tracker_victim"  # the name corpus/resource_tracker_unlink.py registers


def test_read_tail_reads_the_end_of_a_huge_sparse_log_only(tmp_path):
    log = tmp_path / "worker.log"
    with open(log, "wb") as f:
        f.truncate(1 << 30)  # 1 GiB of holes: no disk, but a whole read would allocate it
        f.seek(0, os.SEEK_END)
        f.write("the last line é\n".encode())
    tracemalloc.start()
    try:
        tail = read_tail(log, 2000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tail.endswith("the last line é\n") and len(tail) == 2000
    assert set(tail[:-len("the last line é\n")]) == {"\0"}
    assert peak < 1 << 20  # bytes allocated while reading: the tail, not the file


def test_read_tail_of_short_missing_and_cut_characters(tmp_path):
    short = tmp_path / "short.log"
    short.write_text("hello\n")
    assert read_tail(short, 2000) == "hello\n"
    assert read_tail(tmp_path / "missing.log", 2000) == ""
    wide = tmp_path / "wide.log"
    wide.write_text("é" * 5000)  # 2 bytes a character: the read starts inside one
    assert read_tail(wide, 2000) == "é" * 2000


@pytest.mark.skipif(sys.platform != "linux", reason="/dev/shm and multiprocessing's forkserver are Linux's")
def test_killer_victim_tracker_and_an_honest_candidate_in_one_run(tmp_path):
    """The forkserver pair side by side (two workers), the /dev/shm unlinker, and an honest candidate after."""
    corpus = {n: (CORPUS / f"{n}.py").read_text() for n in ("forkserver_kill_skip", "forkserver_victim",
                                                            "resource_tracker_unlink")}
    rows = [{"task_id": "vllm/rms_norm", "code": corpus["forkserver_kill_skip"], "candidate_id": "killer"},
            {"task_id": "vllm/rms_norm", "code": corpus["forkserver_victim"], "candidate_id": "victim"},
            {"task_id": "aten/add.Tensor", "code": corpus["resource_tracker_unlink"], "candidate_id": "unlinker"},
            {"task_id": "vllm/rms_norm", "code": (EXAMPLE_SOLUTIONS / "vllm__rms_norm.py").read_text(),
             "candidate_id": "honest"}]
    with open(SHM_VICTIM, "w") as f:  # another process's segment (root's, when run as root)
        f.write("keep me\n")
    os.chmod(SHM_VICTIM, 0o600)
    try:
        out = tmp_path / "results.jsonl"
        proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions",
                       str(write_jsonl(tmp_path / "solutions.jsonl", rows)), "--device", "cpu", "--workers", "2",
                       "--timeout", "60", "--seed", "1", "--out", str(out),
                       static_checks=False)  # both refuse `import posix`; what stands behind that is tested here
        assert proc.returncode == 0, proc.stderr[-3000:]
        time.sleep(1)  # the evaluator's resource tracker unlinks what is registered as it ends, after the run
        results = {r["candidate_id"]: r for r in task_rows(out)}
        assert os.path.exists(SHM_VICTIM)
    finally:
        if os.path.exists(SHM_VICTIM):
            os.unlink(SHM_VICTIM)
    got = {c: (r["status"], r["evidence"][:200]) for c, r in results.items()}
    assert got["honest"][0] == "passed", got
    assert got["killer"][0] == "runtime_error" and "builtins.TypeError" in got["killer"][1], got  # no pipe to write
    assert got["unlinker"][0] == "runtime_error" and "builtins.TypeError" in got["unlinker"][1], got
    assert got["victim"][0] == "runtime_error" and "NotImplementedError" in got["victim"][1], got


# The evaluator in-process, one hook around each workload: it ends the evaluator's own forkserver after the
# first candidate's first workload ("server"), or kills the first candidate's worker there ("worker").
_HOOKED_RUN = r"""
import json, os, sys, time
from multiprocessing import forkserver
import kernelgenbench
from kernelgenbench.evaluator import candidates, supervisor

mode, tasks, code = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
real, done = candidates.run_workload, []

def run_workload(ctx, task, cand, w, worker, device, phases):
    res = real(ctx, task, cand, w, worker, device, phases)
    if not done:
        done.append(w.id)
        if mode == "server":
            os.write(forkserver._forkserver._forkserver_alive_fd, b"!")
            deadline = time.monotonic() + 60
            while supervisor._server_running() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not supervisor._server_running()
        else:
            worker.kill()
    return res

candidates.run_workload = run_workload
results = kernelgenbench.evaluate({"vllm/rms_norm": [code, code]}, dataset=tasks, task_ids=["vllm/rms_norm"],
                                  device="cpu", workers=1, rounds=1, seed=1)
print(json.dumps([[r.status.value, r.evidence, done[0], [w.status.value for w in r.workloads
                                                          if w.purpose == "correctness"]] for r in results]))
"""


def _hooked_run(mode: str) -> list[list]:
    code = EXAMPLE_SOLUTIONS / "vllm__rms_norm.py"
    proc = subprocess.run([sys.executable, "-c", _HOOKED_RUN, mode, str(EXAMPLE_TASKS), str(code)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="multiprocessing's forkserver")
def test_a_worker_outlives_its_forkserver_and_the_next_one_starts_in_its_mode():
    """The forkserver gone mid-candidate: the worker is alive by its pid and runs every workload (an honest
    candidate passes, none skipped); the next candidate's worker comes from a server started again in the
    evaluator's Triton mode (a bare restart lacks TRITON_INTERPRET and fails it)."""
    first, second = _hooked_run("server")
    assert first[0] == "passed" and second[0] == "passed", (first, second)
    assert len(first[3]) == 8 and set(first[3]) == {"passed"}, first  # run, not skipped


def test_a_worker_gone_with_workloads_left_is_not_passed():
    """Killed after passing its first workload (for any reason): the next workload is crashed, not skipped."""
    first, second = _hooked_run("worker")
    assert first[0] == "crashed", first
    assert first[3][:3] == ["passed", "crashed", "skipped"], first
    assert f"not run: the worker was gone after workload {first[2]} (passed; " in first[1], first
    assert second[0] == "passed", second
