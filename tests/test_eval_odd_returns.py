"""Whatever a candidate returns, it gets a verdict with evidence at once and the run goes on: outputs on
another device, without data or storage, non-tensors, wrong layouts, disguised subclasses, wrong counts;
the worker never runs a candidate's object's code while it reads and packs outputs; an evaluator failure
on one candidate is that candidate's result."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import torch
from eval_helpers import EXAMPLE_TASKS, corpus, example_rows, run_kgb, task_rows, write_jsonl
from evidence_helpers import call_report

from kernelgenbench.evaluator.checks.packing import judge as judge_packing
from kernelgenbench.evaluator.judge import leaf_verdict
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox import worker
from kernelgenbench.sandbox.protocol import Leaf, Packing

ODD = ("odd_", "patched_tensor_method", "leftover_mode")


class _Liar:
    """An object that says it is a tensor (isinstance agrees) and records anything done to it."""

    touched: list[str] = []
    __class__ = torch.Tensor

    def __getattribute__(self, name):
        _Liar.touched.append(name)
        raise AssertionError(f"the worker touched the candidate's object: {name}")

    def __iter__(self):
        _Liar.touched.append("__iter__")
        return iter([])


class _Disguised(torch.Tensor):
    __module__, __qualname__ = "torch", "Tensor"

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        _Liar.touched.append(getattr(func, "__name__", "?"))
        return super().__torch_function__(func, types, args, kwargs)


class _ListLiar(list):
    def __iter__(self):
        _Liar.touched.append("list.__iter__")
        return iter([])


def test_worker_reads_outputs_without_running_their_code():
    _Liar.touched.clear()
    plain = torch.ones(3)
    disguised = torch.ones(3).as_subclass(_Disguised)
    value = (plain, _ListLiar([disguised, _Liar()]), "s", 3)
    leaves = worker._flatten(value)
    assert [type(v) for v in leaves] == [torch.Tensor, _Disguised, _Liar, str, int]
    assert worker._structure(value) == "[*,[*,*],*,*]"
    metas = [worker._leaf_meta(v, {}) for v in leaves]
    assert [m.plain for m in metas] == [True, False, False, False, False]
    assert metas[1].type == "torch.Tensor (another type under that name)" and metas[1].tensor_subclass
    assert metas[2].tensor_subclass is False
    assert [worker._portable(v, m, "cpu") for v, m in zip(leaves, metas, strict=True)][1:] == [None, None, "s", 3]
    assert worker._portable_arg([plain, disguised, _Liar()], "cpu")[1:] == [None, None]
    assert not _Liar.touched
    loop: list = [plain]
    loop.append(loop)  # a list that contains itself: bounded, not a RecursionError that kills the worker
    assert len(worker._flatten(loop)) == worker.MAX_DEPTH + 1
    assert worker._structure(loop).count("[") == worker.MAX_DEPTH


@pytest.mark.parametrize(("value", "expect"), [
    (torch.empty(3, device="meta"), {"device": "meta", "storage": True}),
    (torch.ones(3).to_sparse(), {"layout": "torch.sparse_coo", "storage": False}),
    (torch._to_functional_tensor(torch.ones(3)), {"storage": False}),
])
def test_leaf_meta_of_plain_tensors_that_cannot_travel(value, expect):
    meta = worker._leaf_meta(value, {})
    assert meta.plain is True and {k: getattr(meta, k) for k in expect} == expect
    assert worker._portable(value, meta, "cpu") is None


def test_hooks_left_after_the_call_are_found():
    from torch.utils._python_dispatch import TorchDispatchMode

    before = (worker._FN_MODES(), worker._DISPATCH_MODES())
    assert worker._hooks_left(before) == []
    original = torch.Tensor.__dict__.get("detach")
    torch.Tensor.detach = lambda t: t  # what a candidate may do at import
    try:
        assert worker._hooks_left(before) == ["torch.Tensor attribute(s) replaced or added: detach"]
    finally:
        torch.Tensor.detach = original
    with TorchDispatchMode():
        assert worker._hooks_left(before) == ["a torch dispatch mode was left active after the call"]
    assert worker._hooks_left(before) == []


def _meta(**kw):
    return Leaf(**{"type": "torch.Tensor", "plain": True, "device": "cpu", "layout": "torch.strided", "nested": False,
                   "storage": True, **kw})


@pytest.mark.parametrize(("meta", "status", "evidence"), [
    (_meta(), Status.PASSED, ""),
    (_meta(device="cuda:0"), Status.INCORRECT_DEVICE, "return: on device cuda:0, expected cpu"),
    (_meta(device="meta"), Status.INCORRECT_DEVICE, "return: on the meta device (a tensor without data), expected cpu"),
    (_meta(plain=False, type="torch.Tensor", tensor_subclass=True), Status.INCORRECT_TYPE,
     "return: expected a plain torch.Tensor, got torch.Tensor (a torch.Tensor subclass)"),
    (Leaf(type="torch.Tensor", plain=False), Status.INCORRECT_TYPE,
     "return: expected a plain torch.Tensor, got torch.Tensor (not a tensor)"),
    (_meta(layout="torch.sparse_coo", storage=False), Status.INCORRECT_TYPE, "return: layout torch.sparse_coo, expected torch.strided"),
    (_meta(storage=False), Status.INCORRECT_TYPE, "return: a tensor without readable storage"),
])
def test_leaf_verdict_is_by_what_the_worker_saw(meta, status, evidence):
    v = leaf_verdict("return", torch.ones(2), meta, "cpu")
    assert v.status is status and v.evidence.startswith(evidence)


def test_packing_check():
    clean = Packing(hooks=(), ops={"aten::detach": 2, "aten::slice.Tensor": 2, "aten::copy_": 2}, tensors=2)
    assert judge_packing(None, call_report(packing=clean)) is None
    assert judge_packing(None, call_report()) is None
    hooked = replace(clean, hooks=("a torch function mode was left active after the call",))
    assert "after the call: a torch function mode" in judge_packing(None, call_report(packing=hooked))
    assert "aten::add.Tensor" in judge_packing(None, call_report(packing=replace(clean, ops={"aten::add.Tensor": 1})))
    assert "3 copies for 2 tensor(s)" in judge_packing(None, call_report(packing=replace(clean, ops={"aten::copy_": 3})))


def test_an_evaluator_failure_is_the_candidates_result_and_the_run_goes_on(monkeypatch, tmp_path):
    from kernelgenbench.dataset.load import load_tasks
    from kernelgenbench.evaluator import rounds, runner
    from kernelgenbench.evaluator.solutions import Candidate

    tasks = load_tasks(EXAMPLE_TASKS)
    row = next(r for r in example_rows() if r["candidate_id"] == "example:aten__mul.Tensor")
    cands = [Candidate(task_id=row["task_id"], candidate_id=c, code=row["code"]) for c in ("first", "second")]
    real = rounds.judge_call
    calls = []

    def judge_once_broken(*a, **kw):  # fault injection: the evaluator's own bug on the first candidate only
        calls.append(1)
        if len(calls) == 1:
            raise KeyError("a bug in the judge")
        return real(*a, **kw)

    monkeypatch.setattr(rounds, "judge_call", judge_once_broken)
    out = tmp_path / "results.jsonl"
    results = runner.run(tasks, cands, config=runner.EvalConfig(device="cpu", rounds=1, call_timeout_s=60), out=out)
    assert [r.status for r in results] == [Status.EVALUATOR_ERROR, Status.PASSED]
    assert "not a verdict on the candidate" in results[0].evidence and "KeyError: 'a bug in the judge'" in results[0].evidence
    assert [r["status"] for r in task_rows(out)] == ["evaluator_error", "passed"]


def _gist(evidence: str) -> str:
    """Evidence's head, and an evaluator_error's innermost frames (where the evaluator failed)."""
    return evidence[:300] + (" ... " + evidence[-1200:] if "not a verdict on the candidate" in evidence else "")


def test_one_run_judges_every_odd_return_at_once_and_the_honest_candidate_after_them(tmp_path):
    odd = [e for e in corpus() if e.name.startswith(ODD)]
    assert len(odd) >= 14
    honest = [r for r in example_rows() if r["candidate_id"] == "example:aten__add.Tensor"]
    rows = [{"task_id": e.task_id, "code": e.code, "candidate_id": f"corpus:{e.name}"} for e in odd] + honest
    sols = write_jsonl(tmp_path / "solutions.jsonl", rows)
    out = tmp_path / "results.jsonl"
    proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(sols), "--device", "cpu",
                   "--workers", "2", "--timeout", "30", "--memory-gib", "2", "--out", str(out), timeout=600,
                   static_checks=False)  # the runtime's verdicts (expect=), also where a static check comes first
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = task_rows(out)
    results = {r["candidate_id"]: r for r in got}
    assert len(got) == len(rows) and set(results) == {r["candidate_id"] for r in rows}  # each exactly once
    wrong = {e.name: (e.expect, results[f"corpus:{e.name}"]["status"], _gist(results[f"corpus:{e.name}"]["evidence"]))
             for e in odd if results[f"corpus:{e.name}"]["status"] != e.expect}
    assert not wrong
    assert results["example:aten__add.Tensor"]["status"] == "passed"
    # a meta tensor once made the evaluator wait out the whole --timeout, others killed the worker
    statuses = [json.loads(line)["status"] for line in out.read_text().splitlines()]
    assert "timeout" not in statuses and "crashed" not in statuses
    assert "meta device" in results["corpus:odd_meta_tensor"]["evidence"]
    # the disguised subclass and the impostor were never touched: their code would have printed
    assert "LAZY RAN" not in results["corpus:odd_disguised_lazy_subclass"]["log_excerpt"]
    assert "IMPOSTOR TOUCHED" not in results["corpus:odd_object"]["log_excerpt"]
    assert "another type under that name" in results["corpus:odd_disguised_lazy_subclass"]["evidence"]
    assert "detach" in results["corpus:patched_tensor_method"]["evidence"]


_HOST_OUTPUT = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + alpha * tl.load(y_ptr + offs, mask=mask), mask=mask)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    _add_kernel[(triton.cdiv(out.numel(), 1024),)](x, y, out, out.numel(), float(alpha), BLOCK=1024)
    host = torch.empty(out.shape, dtype=out.dtype, device="cpu")
    host.copy_(out)  # right values, on the host instead of the device
    return host
'''


@pytest.mark.gpu
def test_on_the_accelerator_an_output_on_the_host_or_meta_is_incorrect_device_and_the_run_goes_on(tmp_path):
    by_name = {e.name: e for e in corpus()}
    rows = [{"task_id": "aten/add.Tensor", "code": _HOST_OUTPUT, "candidate_id": "host_output"}]
    rows += [{"task_id": by_name[n].task_id, "code": by_name[n].code, "candidate_id": n}
             for n in ("odd_meta_tensor", "odd_disguised_lazy_subclass", "odd_wrapper_no_storage", "patched_tensor_method")]
    rows += [r for r in example_rows() if r["candidate_id"] == "example:aten__add.Tensor"]
    out = tmp_path / "results.jsonl"
    proc = run_kgb("eval", "--dataset", str(EXAMPLE_TASKS), "--solutions", str(write_jsonl(tmp_path / "s.jsonl", rows)),
                   "--timeout", "60", "--out", str(out), timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    status = {r["candidate_id"]: (r["status"], r["evidence"][:200]) for r in task_rows(out)}
    assert {k: s for k, (s, _) in status.items()} == {
        "host_output": "incorrect_device", "odd_meta_tensor": "incorrect_device",
        "odd_disguised_lazy_subclass": "incorrect_type", "odd_wrapper_no_storage": "incorrect_type",
        "patched_tensor_method": "tampering", "example:aten__add.Tensor": "passed"}, status
    assert "on device cpu, expected cuda" in status["host_output"][1]


def _packer():
    from kernelgenbench.dataset.record import Task
    from kernelgenbench.evaluator.transfer import Arena, pack

    arena = Arena()
    task = Task.from_dict(json.loads(next(line for line in EXAMPLE_TASKS.read_text().splitlines()
                                          if '"aten/add.Tensor"' in line)))
    args, ret = {"self": torch.ones(4), "other": torch.ones(4)}, (torch.arange(4.0),)

    bound = worker._bind({})

    def pack_with(modes_before):
        return worker._pack_result(call_report(), ret, task, args, {}, "cpu",
                                   lambda obj: json.dumps(pack(obj, arena)).encode(), None, None, modes_before, bound)

    return pack_with


def test_a_mode_from_before_the_call_never_runs_while_packing_and_one_left_by_the_call_stops_it():
    from torch.overrides import TorchFunctionMode

    seen = []

    class Spy(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func)
            return func(*args, **(kwargs or {}))

    pack_with = _packer()
    with Spy():
        header, payload = pack_with((worker._FN_MODES(), worker._DISPATCH_MODES()))
        assert not seen and json.loads(payload)["value"]["dict"][0][0] == "returns"
        assert judge_packing(None, header) is None and header.packing.tensors >= 1
        header, payload = pack_with((0, 0))  # as if the call had pushed it
    assert payload == b"null" and header.leaves == ()
    assert judge_packing(None, header) == "after the call: a torch function mode was left active after the call"
    assert not seen
