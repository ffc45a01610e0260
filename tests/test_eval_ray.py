"""`kgb eval --ray`: a local two-node Ray cluster evaluates the examples through the interpreter, survives a node
removed mid-run, gives the verdicts of a run without Ray, and resumes; retries are bounded."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from eval_helpers import CORPUS, EXAMPLE_SOLUTIONS, EXAMPLE_TASKS, run_kgb, write_jsonl

import kernelgenbench
from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.api import as_candidates, resolve_tasks
from kernelgenbench.evaluator.distributed import run_on_ray
from kernelgenbench.evaluator.runner import EvalConfig
from kernelgenbench.evaluator.status import Status

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402 - only once ray is known to be there

pytestmark = pytest.mark.slow
EXAMPLES = ("aten__add.Tensor", "aten__mul.Tensor", "cublas__cublasSaxpy_v2")
SLEEP_S = 7  # the sleeper's import: long enough to remove its node while it is in flight
_SLEEPER = f"import time\ntime.sleep({SLEEP_S})\n"


def _rows() -> list[dict]:
    """Three examples, a wrong kernel, a forbidden one (judged before any worker), and a slow-to-import one."""
    rows = [{"task_id": s.replace("__", "/", 1), "code": (EXAMPLE_SOLUTIONS / f"{s}.py").read_text(),
             "candidate_id": s} for s in EXAMPLES]
    for name in ("zeros_output", "aten_ops"):
        rows.append({"task_id": "aten/add.Tensor", "code": (CORPUS / f"{name}.py").read_text(), "candidate_id": name})
    return rows


def _sleeper() -> dict:
    code = _SLEEPER + (EXAMPLE_SOLUTIONS / "aten__add.Tensor.py").read_text()
    return {"task_id": "aten/add.Tensor", "code": code, "candidate_id": "sleeper"}


def _tasks() -> list[dict]:
    return [json.loads(line) for line in EXAMPLE_TASKS.read_text().splitlines() if line.strip()]


def test_no_address_starts_a_local_instance_and_a_node_that_cannot_evaluate_says_why():
    # First in the file: no cluster of this module's exists yet, so the run starts (and stops) its own instance.
    with pytest.raises(KgbError, match=r"could host an evaluator.*device 'cuda:99' is not available here"):
        run_on_ray([], [], config=EvalConfig(device="cuda:99"), address=None)
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def cluster():
    # The head holds no CPU, so no evaluator lands there: any worker node can be removed without ending the run.
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    try:
        for _ in range(2):
            c.add_node(num_cpus=1)
        c.wait_for_nodes()
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        c.shutdown()


class _Remover:
    """Removes the node a watched candidate was sent to, `delay` seconds after its first `times` dispatches."""

    def __init__(self, cluster: Cluster, candidate_id: str, times: int, delay: float = 4.0) -> None:
        self.cluster, self.candidate_id, self.times, self.delay = cluster, candidate_id, times, delay
        self.dispatches: list[tuple[str, str]] = []  # (candidate id, node id) of every dispatch
        self.removed: list[str] = []
        self.threads: list[threading.Thread] = []

    def __call__(self, task_id: str, candidate_id: str, kind: str, node_id: str) -> None:
        self.dispatches.append((candidate_id, node_id))
        if candidate_id == self.candidate_id and len(self.threads) < self.times:
            t = threading.Thread(target=self._remove, args=(node_id,), daemon=True)
            t.start()
            self.threads.append(t)

    def _remove(self, node_id: str) -> None:
        time.sleep(self.delay)
        node = next(n for n in self.cluster.worker_nodes if n.node_id == node_id)
        self.cluster.remove_node(node)
        self.removed.append(node_id)


def _on_ray(rows, address, out, *, seed=None, rounds=2, **kw):
    return run_on_ray(resolve_tasks(_tasks(), None, None, "test", None), as_candidates(rows),
                      config=EvalConfig(device="cpu", rounds=rounds, seed=seed), out=out, address=address, **kw)


def _statuses(results) -> dict[str, str]:
    return {r.candidate_id: r.status.value for r in results}


def test_cluster_run_survives_a_node_removed_and_matches_a_run_without_ray(cluster, tmp_path):
    tasks, rows = _tasks(), _rows()
    direct: list = []  # the run without Ray, alongside (both mostly wait on worker start-up)
    alongside = threading.Thread(target=lambda: direct.extend(kernelgenbench.evaluate(
        rows, tasks=tasks, device="cpu", rounds=2, seed=5, out=tmp_path / "direct.jsonl")))
    alongside.start()
    out = tmp_path / "ray.jsonl"
    remover = _Remover(cluster, "sleeper", times=1, delay=3.0)
    t0 = time.monotonic()
    got = _on_ray([*rows, _sleeper()], cluster.address, out, seed=5, platforms="all", on_dispatch=remover)
    elapsed = time.monotonic() - t0
    for t in [*remover.threads, alongside]:
        t.join(timeout=300)
    # The sleeper's first node was removed while it imported: it ran again on the other node and passed.
    sleeper_nodes = [n for c, n in remover.dispatches if c == "sleeper"]
    assert remover.removed == sleeper_nodes[:1]
    assert len(sleeper_nodes) == 2 and sleeper_nodes[1] != sleeper_nodes[0]
    assert _statuses(got) == {**_statuses(direct), "sleeper": "passed"}, elapsed
    assert _statuses(direct)["aten__add.Tensor"] == "passed" and _statuses(direct)["zeros_output"] != "passed"
    assert all(r.platform.get("vendor") == "cpu" and r.seed == 5 for r in got)
    # The driver alone wrote the file: one candidate row per candidate, its workload rows, nothing of the lost try.
    file_rows = [json.loads(line) for line in out.read_text().splitlines()]
    task_rows = [r for r in file_rows if r["kind"] == "task"]
    assert sorted(r["candidate_id"] for r in task_rows) == sorted(_statuses(got))
    sleeper_rows = [r for r in file_rows if r["candidate_id"] == "sleeper"]
    assert [r["kind"] for r in sleeper_rows] == ["workload", "workload", "task"]
    ok = next(r for r in got if r.candidate_id == "aten__add.Tensor")
    assert [w.status for w in ok.workloads] == [Status.PASSED, Status.SKIPPED]

    # Resumed by (task, candidate, platform), through the public API: every verdict is read back, none redone.
    before = out.read_text()
    again = kernelgenbench.evaluate([*rows, _sleeper()], tasks=tasks, device="cpu", rounds=2, out=out, resume=True,
                                    ray=cluster.address, platforms="all")
    assert _statuses(again) == _statuses(got) and out.read_text() == before
    # And through the command line: the same, with a line per candidate and its platform.
    sols = write_jsonl(tmp_path / "sols.jsonl", [*rows, _sleeper()])
    proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols), "--device", "cpu", "--out",
                   str(out), "--resume", "--ray", cluster.address, "--platforms", "all", timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert re.search(r"^FAIL incorrect_numerics +aten/add.Tensor \[zeros_output\] @cpu ", proc.stderr, re.M)
    assert "statuses [all]: passed 4" in proc.stdout
    assert out.read_text() == before


def test_a_candidate_lost_more_often_than_retries_allow_is_reported_crashed(cluster, tmp_path):
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    out = tmp_path / "r.jsonl"
    remover = _Remover(cluster, "sleeper", times=2, delay=3.0)
    (res,) = _on_ray([_sleeper()], cluster.address, out, rounds=1, retries=1, on_dispatch=remover)
    for t in remover.threads:
        t.join(timeout=30)
    assert res.status is Status.CRASHED
    assert "lost with its node or actor 2 time(s)" in res.evidence and "attempt 2" in res.evidence
    assert [r["status"] for r in map(json.loads, out.read_text().splitlines())] == ["crashed"]
