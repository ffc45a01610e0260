"""OS isolation of workers: the level detected, what a worker sees from inside, and a run with hostile
candidates (results rewritten, forged stderr lines, the evaluator killed, a setsid orphan) that must leave
the run, its summary and its results file as the evaluator decided them, and nothing running afterwards.

The full level (PID + mount namespaces, a dedicated uid) needs root: those tests skip otherwise. CI runs
them as root on CPU (Triton's interpreter)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from eval_helpers import CORPUS, EXAMPLE_SOLUTIONS, EXAMPLE_TASKS, NO_STATIC_CHECKS, write_jsonl

from kernelgenbench.evaluator.summary import format_table, summarize
from kernelgenbench.sandbox import isolation

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0 or sys.platform != "linux",
                               reason="PID/mount namespaces and a dedicated uid need root on Linux (CI runs as root)")
UID_BASE = 64100
HOSTILE = ("proc_results_rewrite", "proc_stderr_forge", "proc_kill_evaluator", "setsid_orphan")


def test_level_detection_follows_privileges():
    assert isolation.detect_level(euid=0) == isolation.LEVEL_ROOT
    assert isolation.detect_level(euid=1000, userns_allowed=True) == isolation.LEVEL_USERNS
    assert isolation.detect_level(euid=1000, userns_allowed=False) == isolation.LEVEL_SESSION
    assert isolation.detect_level() == (isolation.LEVEL_ROOT if os.geteuid() == 0 else isolation.detect_level(
        userns_allowed=isolation._userns_allowed()))


def test_blocked_finds_the_closed_folder_above_a_path():
    base = Path(tempfile.mkdtemp(prefix="kgb-iso-blocked-"))  # under /tmp: every folder above is searchable
    try:
        os.chmod(base, 0o755)
        closed = base / "closed"
        inner = closed / "lib" / "python"
        inner.mkdir(parents=True)
        os.chmod(closed, 0o700)
        os.chmod(closed / "lib", 0o700)
        assert isolation.blocked(str(inner)) == str(closed)  # the highest one
        assert isolation.to_reveal([str(inner), str(base)]) == [str(inner)]
        os.chmod(closed, 0o755)
        os.chmod(closed / "lib", 0o755)
        assert isolation.blocked(str(inner)) is None
        os.chmod(inner, 0o700)
        with pytest.raises(ValueError, match="not readable by other uids"):
            isolation.blocked(str(inner))
        assert isolation.to_reveal([str(inner)]) is None
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)


_PROBE = r"""
import importlib.util, json, os, socket, sys
from multiprocessing.connection import Connection
from kernelgenbench.sandbox import isolation
# torch is not imported before `enter`: its threads would make the kernel refuse a user namespace (a real
# worker is forked single-threaded from the server that has torch loaded).
a, b = socket.socketpair()
cfg = json.loads(sys.argv[1])
isolation.prepare_dir(cfg["workdir"], cfg["uid"], cfg["gid"])
cfg["reveal"] = isolation.to_reveal([sys.prefix, sys.base_prefix, os.path.dirname(isolation.__file__)] + [
    os.path.dirname(importlib.util.find_spec(m).origin) for m in ("torch", "triton")])
info = isolation.enter(cfg, Connection(os.dup(a.fileno())))
seen = {"info": info, "pid": os.getpid(), "ids": [os.getresuid(), os.getresgid(), os.getgroups()],
        "procs": sorted(p for p in os.listdir("/proc") if p.isdigit()), "cwd": os.getcwd(),
        "home": os.environ["HOME"], "triton_cache": os.environ["TRITON_CACHE_DIR"],
        "session": os.getsid(0) == os.getpid(),
        "caps": next(line.split()[1] for line in open("/proc/self/status") if line.startswith("CapEff"))}
seen["pwd"] = os.environ.get("PWD")
seen["tmp"] = sorted(os.listdir("/tmp")) if os.path.isdir("/tmp") else None
try:
    with open(cfg["probe"]["marker"], "w") as f:
        f.write("x")
    seen["tmp_write"] = "written"
except OSError as exc:
    seen["tmp_write"] = type(exc).__name__
seen["interfaces"] = sorted(name for _, name in socket.if_nameindex())
for name in ("results", "dataset_file", "other_home"):
    try:
        with open(cfg["probe"][name]) as f:
            seen[name] = f.read()
    except OSError as exc:
        seen[name] = type(exc).__name__
try:
    os.kill(int(cfg["probe"]["evaluator"]), 0)  # signal 0: only whether it could be signalled
    seen["kill_evaluator"] = "sent"
except OSError as exc:
    seen["kill_evaluator"] = type(exc).__name__
print(json.dumps(seen))
sys.stdout.flush()
os._exit(7)
"""


def _probe(level: str | None) -> dict:
    """Enter isolation (from `level` down) in a fresh process and report what it sees from inside; the
    evaluator's pid, a covered results file and dataset, and another candidate's folder are its targets."""
    base = Path(tempfile.mkdtemp(prefix="kgb-iso-probe-"))
    # a name of its own in the host's /tmp: a weaker level's probe (which may write there) leaves no trace
    # that a later probe would read as its own
    marker = Path("/tmp") / f"kgb-probe-left-behind-{base.name}"
    try:
        os.chmod(base, 0o755)  # only the files' own modes and the covers keep the worker out
        results = base / "results.jsonl"
        results.write_text('{"kind": "task"}\n')
        os.chmod(results, 0o644)  # even world-readable, the cover hides it
        dataset = base / "dataset"
        dataset.mkdir(mode=0o755)
        (dataset / "tasks.jsonl").write_text("secret records\n")
        os.chmod(dataset / "tasks.jsonl", 0o644)
        other = base / "other"
        isolation.prepare_dir(str(other), UID_BASE + 1, UID_BASE + 1)
        (other / "candidate.py").write_text("code of another candidate\n")
        uid = UID_BASE if level is None else None  # the weaker levels run as the evaluator, as without root
        cfg = {"workdir": str(base / "mine"), "uid": uid, "gid": uid, "hide": [str(results), str(dataset)],
               "level": level, "probe": {"results": str(results), "dataset_file": str(dataset / "tasks.jsonl"),
                                         "other_home": str(other / "candidate.py"), "evaluator": os.getpid(),
                                         "marker": str(marker)}}
        proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(cfg)], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 7, proc.stderr[-2000:]  # the intermediate mirrors PID 1's exit status
        seen = json.loads(proc.stdout.strip().splitlines()[-1])
        assert results.read_text() == '{"kind": "task"}\n'
        seen["left_in_host_tmp"] = marker.exists()
        seen["paths"] = {"workdir": cfg["workdir"], "covered": [str(results), str(dataset)]}
        return seen
    finally:
        subprocess.run(["rm", "-rf", str(base), str(marker)], check=False)


@ROOT_ONLY
def test_root_level_from_inside():
    """In its own PID namespace, only its own /proc, the slot's uid, covered paths empty, the others closed."""
    seen = _probe(None)
    assert seen["info"]["level"] == isolation.LEVEL_ROOT
    assert seen["info"]["covered"] == seen["paths"]["covered"]
    assert seen["pid"] == 2 and seen["procs"] == ["1", "2"]  # the namespace's init, and itself
    assert seen["ids"] == [[UID_BASE] * 3, [UID_BASE] * 3, []]
    assert seen["caps"] == "0000000000000000"
    assert seen["cwd"] == seen["home"] == seen["paths"]["workdir"]
    assert seen["triton_cache"].startswith(seen["paths"]["workdir"])
    assert seen["results"] == ""  # /dev/null in its mount namespace
    assert seen["dataset_file"] in ("PermissionError", "FileNotFoundError")
    assert seen["other_home"] == "PermissionError"
    assert seen["kill_evaluator"] == "ProcessLookupError"  # not in its PID namespace at all
    _assert_private_scratch_and_network(seen)


def _assert_private_scratch_and_network(seen: dict) -> None:
    # candidates side by side cannot pass answers through /tmp or sockets, nor find the evaluator's folder
    assert not seen["left_in_host_tmp"]
    # the probe's own folder lies under /tmp here, so /tmp is a read-only view; elsewhere an empty one
    assert seen["info"]["scratch"][0] in ("/tmp: read-only", "/tmp: private")
    if seen["info"]["scratch"][0] == "/tmp: read-only":
        assert seen["tmp_write"] == "OSError"
    else:
        assert seen["tmp"] == [] and seen["tmp_write"] == "written"
    assert "/dev/shm: private" in seen["info"]["scratch"]
    assert seen["info"]["network"] == "own namespace" and seen["interfaces"] == ["lo"]
    assert seen["pwd"] == seen["paths"]["workdir"]


@ROOT_ONLY
def test_user_namespace_level_from_inside():
    """The level used without root, entered here by root: the same namespaces, no capability left."""
    seen = _probe(isolation.LEVEL_USERNS)
    assert seen["info"]["level"] == isolation.LEVEL_USERNS
    assert seen["pid"] == 2 and seen["procs"] == ["1", "2"]
    assert seen["caps"] == "0000000000000000"
    assert seen["results"] == "" and seen["dataset_file"] in ("PermissionError", "FileNotFoundError")
    assert seen["other_home"] == "PermissionError"  # another uid's 0700 folder, and no capability to pass it
    assert seen["kill_evaluator"] == "ProcessLookupError"
    _assert_private_scratch_and_network(seen)


@ROOT_ONLY
def test_session_level_is_recorded_as_the_weakest():
    """The last resort: its own session, still the evaluator's uid and PID namespace (what its level says)."""
    seen = _probe(isolation.LEVEL_SESSION)
    assert seen["info"]["level"] == isolation.LEVEL_SESSION
    assert "not contained" in seen["info"]["note"]
    assert seen["pid"] > 2 and seen["session"]
    assert seen["cwd"] == seen["paths"]["workdir"]




_ENTER_THEN = r"""
import os, signal, socket, sys, time
from multiprocessing.connection import Connection
from kernelgenbench.sandbox import isolation
a, b = socket.socketpair()
isolation.prepare_dir(sys.argv[1], int(sys.argv[2]), int(sys.argv[2]))
isolation.enter({"workdir": sys.argv[1], "uid": int(sys.argv[2]), "gid": int(sys.argv[2])}, Connection(os.dup(a.fileno())))
if sys.argv[3] == "segv":
    os.kill(os.getpid(), signal.SIGSEGV)  # sent to itself: the worker must die of it, as outside a namespace
    time.sleep(30)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(300)  # an orphan that left the session
    os._exit(0)
print("ready", flush=True)
time.sleep(300)
"""


@ROOT_ONLY
def test_worker_dies_of_a_signal_it_sends_itself(tmp_path):
    base = Path(tempfile.mkdtemp(prefix="kgb-iso-segv-"))
    os.chmod(base, 0o711)  # the worker's uid passes through to its own folder
    try:
        proc = subprocess.run([sys.executable, "-c", _ENTER_THEN, str(base / "w"), str(UID_BASE + 7), "segv"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == -11, proc.stderr[-2000:]  # mirrored by the intermediate
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)


@ROOT_ONLY
def test_sigterm_to_the_worker_ends_its_whole_namespace():
    """What the evaluator does on a timeout: SIGTERM to the worker's process ends it and every orphan."""
    base = Path(tempfile.mkdtemp(prefix="kgb-iso-term-"))
    os.chmod(base, 0o711)  # the worker's uid passes through to its own folder
    uid = UID_BASE + 8
    proc = subprocess.Popen([sys.executable, "-c", _ENTER_THEN, str(base / "w"), str(uid), "orphan"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()[-2000:]
        assert len(_worker_uid_processes(uid)) >= 2  # the worker and its orphan (and a zombie between them)
        proc.terminate()
        assert proc.wait(timeout=30) == -9  # the namespace's init was SIGKILLed
        deadline = time.monotonic() + 5
        while _worker_uid_processes(uid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _worker_uid_processes(uid)
    finally:
        if proc.poll() is None:
            proc.terminate()  # its namespace with it
            proc.wait(timeout=30)
        subprocess.run(["rm", "-rf", str(base)], check=False)


def _hostile_rows(results_path: Path) -> list[dict[str, str]]:
    rows = []
    for name in HOSTILE:
        code = (CORPUS / f"{name}.py").read_text()
        code = code.replace("TARGETS: list[str] = []", f"TARGETS: list[str] = [{str(results_path)!r}]")
        rows.append({"task_id": "aten/add.Tensor", "code": code, "candidate_id": f"hostile:{name}"})
    honest = (EXAMPLE_SOLUTIONS / "aten__add.Tensor.py").read_text()
    rows.append({"task_id": "aten/add.Tensor", "code": honest, "candidate_id": "honest:add"})
    return rows


def _marked_processes(marker: bytes) -> list[int]:
    """Processes whose environment carries the run's marker (the run and everything it started)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker in f.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def _worker_uid_processes(only: int | None = None) -> list[int]:
    """Processes running as a worker uid (or as `only`)."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/status") as f:
                uid = next(int(line.split()[1]) for line in f if line.startswith("Uid:"))
        except (OSError, StopIteration, ValueError):
            continue
        if (uid == only) if only is not None else (UID_BASE <= uid < UID_BASE + 64):
            found.append(int(pid))
    return found


@ROOT_ONLY
def test_hostile_candidates_cannot_touch_the_run(tmp_path):
    base = Path(tempfile.mkdtemp(prefix="kgb-iso-run-"))
    try:
        os.chmod(base, 0o755)  # the results file's own mode and the covers must keep workers out
        out = base / "results.jsonl"
        rows = _hostile_rows(out)
        sols = write_jsonl(tmp_path / "solutions.jsonl", rows)
        marker = f"KGB_ISOLATION_TEST={uuid.uuid4().hex}"
        beside = set(_worker_uid_processes())  # another run's workers on this machine are not this run's
        env = {**os.environ, marker.split("=")[0]: marker.split("=")[1]}
        proc = subprocess.run([sys.executable, "-c", NO_STATIC_CHECKS, "eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols),
                                          "--tasks", "aten/add.Tensor", "--device", "cpu", "--workers", "1",
                                          "--rounds", "2", "--timeout", "60", "--out", str(out)],
                              capture_output=True, text=True, timeout=600, env=env, start_new_session=True)
        assert proc.returncode == 0, proc.stderr[-3000:]
        time.sleep(3.0)  # the orphan, were it alive, would rewrite the file and kill what it sees by now
        assert not _marked_processes(marker.encode())
        assert not set(_worker_uid_processes()) - beside

        lines = out.read_text().splitlines()
        written = [json.loads(line) for line in lines]
        tasks = [r for r in written if r["kind"] == "task"]
        assert [r["candidate_id"] for r in tasks] == [r["candidate_id"] for r in rows]
        assert {r["candidate_id"] for r in written} == {r["candidate_id"] for r in rows}
        decided = {r["candidate_id"]: r["status"] for r in tasks}
        assert decided == {**{f"hostile:{n}": "incorrect_numerics" for n in HOSTILE}, "honest:add": "passed"}
        assert all(r["isolation"] == isolation.LEVEL_ROOT for r in written)
        st = out.stat()
        assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()

        # what the CLI printed is what was decided, with no forged line anywhere
        assert "forged" not in proc.stdout + proc.stderr
        assert format_table(summarize(tasks)) in proc.stdout
        printed = re.findall(r"^(PASS|FAIL) \S+\s+aten/add.Tensor \[(\S+)\]", proc.stderr, re.M)
        assert sorted(printed) == sorted(("PASS" if s == "passed" else "FAIL", cid) for cid, s in decided.items())
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
