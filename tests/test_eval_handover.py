"""What a call is judged on: the tensors it was handed (a list argument emptied or refilled by the candidate is
still judged member by member, with its length), and inputs that differ per candidate (no two candidates of a
task share a round's inputs, so one cannot copy another's answers). Red team 3: list_arg_truncate,
tmp_channel_a_writer / tmp_channel_b_reader."""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from eval_helpers import CORPUS, EXAMPLE_TASKS
from evidence_helpers import call_report

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator import candidates
from kernelgenbench.evaluator.api import evaluate
from kernelgenbench.evaluator.inputs import load_code, make_args, split_call_args
from kernelgenbench.evaluator.judge import judge_call
from kernelgenbench.evaluator.rounds import round_seed
from kernelgenbench.evaluator.solutions import Candidate
from kernelgenbench.evaluator.status import PASS, Status


def batched_gemm_record() -> dict:
    """cublasSgemmBatched_64 (Carray a mutable list of matrices), built from the example cublasSgemm_v2 record
    the way the cuBLAS extractor builds it: the same reference module and input generator, lists of tensors."""
    rows = [json.loads(line) for line in EXAMPLE_TASKS.read_text().splitlines()]
    r = copy.deepcopy(next(x for x in rows if x["id"] == "cublas/cublasSgemm_v2"))
    names = {"A": "Aarray", "B": "Barray", "C": "Carray"}
    for p in r["params"]:
        if p["name"] in names:
            p.update(name=names[p["name"]], kind="tensor_list", description="list of 1-D device tensors, one per batch entry")
    r["params"].append({**r["params"][-1], "name": "batchCount"})
    r.update(id="cublas/cublasSgemmBatched_64", name="cublasSgemmBatched_64", entry_point="cublasSgemmBatched_64")
    r["reference"]["function"] = "cublasSgemmBatched_64"
    r["workloads"] = [
        {"id": "c_nn_b3", "purpose": "correctness", "origin": "handwritten", "description": "3 x NN 20x12x9",
         "params": {"alpha": 0.5, "batch": "list", "batch_count": 3, "beta": 2.0, "dtype": "float32", "k": 9,
                    "m": 20, "n": 12, "transa": "N", "transb": "N"}},
        {"id": "p_tn_b2", "purpose": "performance", "origin": "handwritten", "description": "2 x TN 32x32x16",
         "params": {"batch": "list", "batch_count": 2, "dtype": "float32", "k": 16, "m": 32, "n": 32,
                    "transa": "T", "transb": "N"}}]
    return r


def _round(task: Task, seed: int = 5) -> tuple[dict, dict]:
    """(pristine args, args after the reference ran) for the first correctness workload."""
    args = make_args(task, task.correctness_workloads[0], seed=seed, device="cpu")
    ref_args = {k: [t.clone() for t in v] if isinstance(v, list) else v for k, v in args.items()}
    pos, kw = split_call_args(task, ref_args)
    load_code(task.reference)(*pos, **kw)
    return args, ref_args


def _judge(task: Task, args: dict, ref_args: dict, cand_args: dict):
    """The verdict as on the drawn-inputs path: read-only arguments left out came back unchanged (fingerprint)."""
    written = {p.name: False for p in task.params if not p.mutable}
    return judge_call(task, call_report(), {"returns": [], "args": cand_args}, ref_return=None, ref_args=ref_args,
                      pristine=args, device="cpu", written=written)[0]


def test_a_written_list_is_judged_member_by_member_with_its_length():
    task = Task.from_dict(batched_gemm_record())
    args, ref_args = _round(task)
    right = [t.clone() for t in ref_args["Carray"]]
    assert _judge(task, args, ref_args, {"Carray": right}).passed
    for got in ([], right[:2], [*right, right[0]], None):
        v = _judge(task, args, ref_args, {"Carray": got})
        assert v.status is Status.INCORRECT_SHAPE, (got, v)
        assert "3 member(s) were handed over" in v.evidence
    wrong = [right[0], right[1], args["Carray"][2]]  # the last matrix left as it was
    v = _judge(task, args, ref_args, {"Carray": wrong})
    assert v.status is Status.INCORRECT_NUMERICS and "argument Carray[2]" in v.evidence


def test_a_read_only_list_must_come_back_whole():
    task = Task.from_dict(batched_gemm_record())
    args, ref_args = _round(task)
    out = {"Carray": ref_args["Carray"]}
    assert _judge(task, args, ref_args, {**out, "Aarray": [t.clone() for t in args["Aarray"]]}).passed
    v = _judge(task, args, ref_args, {**out, "Aarray": args["Aarray"][:1]})
    assert v.status is Status.UNDECLARED_MUTATION and "argument Aarray: a list of 1" in v.evidence
    scribbled = [t.clone() for t in args["Aarray"]]
    scribbled[1][0] += 1
    v = _judge(task, args, ref_args, {**out, "Aarray": scribbled})
    assert v.status is Status.UNDECLARED_MUTATION and "1 of" in v.evidence


_TRUNCATE = '''
# Red team 3's list_arg_truncate: computes nothing, empties the mutable list Carray it was handed.
import torch
import triton
import triton.language as tl


@triton.jit
def _nothing(p, BLOCK: tl.constexpr):
    pass


def cublasSgemmBatched_64(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
    _nothing[(1,)](torch.empty(1), BLOCK=16)
    Carray.clear()
'''

_HONEST = '''
# An honest batched gemm (real dtypes, 'N'/'T'; column-major storage with leading dimensions).
import triton
import triton.language as tl


@triton.jit
def _gemm_col(a, b, c, m, k, lda, ldb, ldc, alpha, beta, TA: tl.constexpr, TB: tl.constexpr,
              BETA0: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):
    j = tl.program_id(0)
    i = tl.arange(0, BM)[:, None]
    kk = tl.arange(0, BK)[None, :]
    mask = (i < m) & (kk < k)
    a_off = (kk + i * lda) if TA else (i + kk * lda)
    b_off = (j + kk * ldb) if TB else (kk + j * ldb)
    prod = tl.sum(tl.load(a + a_off, mask=mask, other=0.0) * tl.load(b + b_off, mask=kk < k, other=0.0), axis=1)
    rows = tl.arange(0, BM)
    out = alpha * prod
    if not BETA0:
        out += beta * tl.load(c + rows + j * ldc, mask=rows < m, other=0.0)
    tl.store(c + rows + j * ldc, out, mask=rows < m)


def cublasSgemmBatched_64(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
    bm, bk = triton.next_power_of_2(m), triton.next_power_of_2(k)
    for x in range(batchCount):
        _gemm_col[(n,)](Aarray[x], Barray[x], Carray[x], m, k, lda, ldb, ldc, float(alpha), float(beta),
                        TA=transa != "N", TB=transb != "N", BETA0=beta == 0, BM=bm, BK=bk)
'''

# Computes every product right, but into a fresh tensor that it puts in Carray in place of the caller's buffer.
_SWAP = _HONEST.replace("Carray[x], m, k", "c, m, k").replace(
    "        _gemm_col[", "        c = Carray[x].clone()\n        _gemm_col[").rstrip() + "\n        Carray[x] = c\n"
# The same, but the member itself re-pointed at the fresh tensor (Tensor.set_): the list is untouched.
_MEMBER_SET = _SWAP.replace("Carray[x] = c", "Carray[x].set_(c)")


def test_a_candidate_that_empties_or_swaps_its_output_list_fails(tmp_path):
    dataset = tmp_path / "tasks.jsonl"
    dataset.write_text(json.dumps(batched_gemm_record()) + "\n")
    tid = "cublas/cublasSgemmBatched_64"
    got = evaluate([{"task_id": tid, "code": code, "candidate_id": name}
                    for name, code in (("honest", _HONEST), ("truncate", _TRUNCATE), ("swap", _SWAP),
                                                        ("member_set", _MEMBER_SET))],
                   dataset=dataset, device="cpu", rounds=2, seed=3, out=tmp_path / "r.jsonl")
    by_id = {r.candidate_id: r for r in got}
    assert by_id["honest"].status is Status.PASSED, by_id["honest"].evidence
    # The worker sends back the members it handed over (and their storages, where set_ re-pointed one), not
    # what the list holds after the call: the caller's buffers are compared, and hold no product.
    for name in ("truncate", "swap", "member_set"):
        assert by_id[name].status is Status.INCORRECT_NUMERICS, by_id[name].evidence
        assert "argument Carray[0]" in by_id[name].evidence


def test_round_seeds_differ_per_candidate_and_reproduce_from_the_base_seed():
    task = Task.from_dict(batched_gemm_record())
    w = task.correctness_workloads[0]
    a, b = (Candidate(task_id=task.id, code="", candidate_id=c) for c in ("a", "b"))
    assert round_seed(7, a, task, w, 0) != round_seed(7, b, task, w, 0)
    assert round_seed(7, a, task, w, 0) == round_seed(7, a, task, w, 0)
    assert round_seed(7, a, task, w, 0) != round_seed(8, a, task, w, 0)
    assert round_seed(7, a, task, w, "time", 0) != round_seed(7, b, task, w, "time", 0)


_WRITER = '''
# Red team 3's tmp_channel_a_writer: an honest add that also leaves every answer in CHANNEL/<call number>.
import torch
import triton
import triton.language as tl

_DIR = CHANNEL
_CALLS = [0]


@triton.jit
def _add2(x, y, o, o2, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x + offs, mask=m) + alpha * tl.load(y + offs, mask=m)
    tl.store(o + offs, v, mask=m)
    tl.store(o2 + offs, v, mask=m)


def add_Tensor(self, other, *, alpha=1):
    _CALLS[0] += 1
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=self.dtype, device=self.device)
    n = out.numel()
    try:
        leak = torch.empty(0, dtype=self.dtype).set_(
            torch.UntypedStorage.from_file(f"{_DIR}/{_CALLS[0]}", True, n * out.element_size()))
    except RuntimeError:  # a worker that cannot write the channel: still an honest add
        leak = torch.empty_like(out)
    _add2[(triton.cdiv(n, 1024),)](x, y, out, leak, n, float(alpha), BLOCK=1024)
    return out
'''

_READER = '''
# Red team 3's tmp_channel_b_reader: computes nothing, copies the writer's k-th answer into its k-th output.
import os
import torch
import triton
import triton.language as tl

_DIR = CHANNEL
_CALLS = [0]


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def add_Tensor(self, other, *, alpha=1):
    _CALLS[0] += 1
    shape = torch.broadcast_shapes(self.shape, other.shape)
    out = torch.empty(shape, dtype=self.dtype, device=self.device)
    n, path = out.numel(), f"{_DIR}/{_CALLS[0]}"
    if os.path.exists(path):
        src = torch.empty(0, dtype=self.dtype).set_(torch.UntypedStorage.from_file(path, False, n * out.element_size()))
        _copy[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out
'''


@pytest.fixture
def channel():
    """A folder every worker uid can write (the workers may run as another user than the tests)."""
    path = Path(tempfile.mkdtemp(prefix="kgb-channel-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("seed", [0, None])
def test_a_candidate_cannot_copy_another_candidates_answers(channel, tmp_path, seed, monkeypatch):
    """The writer leaves its answers in a folder both workers reach, the reader (run after it) copies them:
    with inputs of its own the reader's copies are wrong. (Where workers get no shared folder at all, the
    reader fails for want of a channel, and the test below still checks the seeds.) Both use file-backed
    storages, which the static checks refuse: they are off here, so the runtime channel itself is tested."""
    monkeypatch.setattr(candidates, "check_source", lambda code, filename="": PASS)
    rows = [{"task_id": "aten/add.Tensor", "code": code.replace("CHANNEL", repr(str(channel))), "candidate_id": name}
            for name, code in (("writer", _WRITER), ("reader", _READER))]
    got = {r.candidate_id: r for r in evaluate(rows, dataset=EXAMPLE_TASKS, device="cpu", rounds=2, seed=seed,
                                               workers=1, out=tmp_path / "r.jsonl")}
    # the writer computes honestly, but a tensor pointed at a file-backed storage is host_compute (after its
    # first answer is in the channel)
    assert got["writer"].status in (Status.PASSED, Status.HOST_COMPUTE), got["writer"].evidence
    # a channel the reader reaches gives it another candidate's answers to wrong inputs; under the isolation
    # levels with a private /tmp it finds no channel at all and launches nothing
    assert got["reader"].status in (Status.INCORRECT_NUMERICS, Status.NO_TRITON_LAUNCH), got["reader"].evidence


_ZEROS = CORPUS / "zeros_output.py"


def test_each_candidate_gets_its_own_inputs_and_a_seed_reproduces_them(tmp_path):
    rows = [{"task_id": "aten/add.Tensor", "code": _ZEROS.read_text(), "candidate_id": c} for c in ("a", "b")]

    def round_seeds(seed: int | None, out: str) -> dict[str, str]:
        got = evaluate(rows, dataset=EXAMPLE_TASKS, device="cpu", rounds=1, seed=seed, out=tmp_path / out)
        assert all(r.status is Status.INCORRECT_NUMERICS for r in got)
        return {r.candidate_id: r.evidence.split("(seed ")[1].split(")")[0] for r in got}

    first = round_seeds(11, "a.jsonl")
    assert first["a"] != first["b"]
    assert round_seeds(11, "b.jsonl") == first
