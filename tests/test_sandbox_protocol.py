"""The typed protocol between a worker and the evaluator: strict on receipt, nothing collected that no judge
reads, and a malformed report forged from inside a candidate's process is that candidate's `tampering`,
never the run's end."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest
from eval_helpers import EXAMPLE_TASKS, example_rows, task_rows, write_jsonl

import kernelgenbench
from kernelgenbench.evaluator.status import PASS, Status
from kernelgenbench.sandbox import protocol
from kernelgenbench.sandbox.protocol import (
    CallReport,
    DrawError,
    IsolationReport,
    Kernel,
    Leaf,
    Memcpy,
    Packing,
    Profile,
    ProtocolError,
    Raised,
    Ready,
    Sizes,
    Threads,
    ThreadSeen,
    TimeReport,
    Timing,
    encode,
    parse_message,
)

PROFILE = Profile(available=True, reason="", expected=True, device="cuda", cpu_ops={"aten::add.Tensor": 1},
                  cpu_ops_in_launch={"aten::copy_": 2}, launch_ranges=1,
                  cpu_op_parts={"aten::to.dtype": ((), ("aten::_to_copy",)), "aten::add.Tensor": ((),)},
                  kernels=(Kernel(name="_add_kernel", stream=7, origin="triton", library="triton", count=1, us=2.5),),
                  call_stream=7, memcpy=(Memcpy(kind="DtoH", bytes=64),))
RESULT = CallReport(event="result", tampering=("x was replaced",), launches={"_add_kernel": 1}, launch_ranges=1,
                    ops={"aten::empty.memory_format": 1}, ops_in_launch={}, profile=PROFILE,
                    threads=Threads(at_start=(), at_end=(ThreadSeen(name="12 pool", python=False, state="S", call_cpu_s=0.1,
                                                                     settle_cpu_s=0.0),), started=()), receive_s=0.01,
                    inputs_before={"self": "ab"}, elapsed_s=0.5, compile_s=0.25, returns_none=False,
                    packing=Packing(hooks=(), ops={"aten::copy_": 1}, tensors=1),
                    leaves=(Leaf(type="torch.Tensor", plain=True, device="cuda:0", layout="torch.strided",
                                 storage=True, alias="self"), Leaf(type="builtins.int", plain=False)),
                    sizes=Sizes(returns=((4, 16), None), args={"self": (4, 16)}), structure="[*,*]",
                    inputs_after={"self": "ab"}, send_s=0.001, transfer_error="", unreadable="")
MESSAGES = [
    IsolationReport(event="isolation", level="userns"),
    Raised(event="import_error", exc_type="builtins.ImportError", message="no module", traceback="..."),
    Ready(event="ready", entry_point_found=True, tampering=()),
    DrawError(event="draw_error"),
    RESULT,
    dataclasses.replace(RESULT, event="error", exc_type="builtins.ValueError", message="bad", traceback="tb",
                        packing=None, leaves=(), sizes=None),
    TimeReport(event="timing", timing=Timing(available=True, method="events", time_us=3.5, reps=10,
                                             precision={"tf32": False}, device="cuda:0")),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_survives_the_wire(message):
    assert parse_message(encode(message)) == message


def _result(**change):
    data = json.loads(encode(RESULT))
    for key, value in change.items():
        if value is dataclasses.MISSING:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data).encode()


@pytest.mark.parametrize(("raw", "error"), [
    (_result(verdict="passed"), "result: unknown key(s) verdict"),
    (_result(launches=1), "result.launches: expected an object, got an integer"),
    (_result(launches={"k": "1"}), "result.launches['k']: expected int, got a string"),
    (_result(launches={"k": True}), "result.launches['k']: expected int, got a boolean"),
    (_result(profile=dataclasses.MISSING), "result: missing key 'profile'"),
    (_result(launch_ranges=10**30), "result.launch_ranges: integer out of range"),
    (_result(elapsed_s=1e999), "result.elapsed_s: not a finite number"),
    (_result(elapsed_s=float("nan")), "result.elapsed_s: not a finite number"),
    (_result(tampering=[{"nested": ["junk"]}]), "result.tampering[0]: expected str, got an object"),
    (_result(sizes={"returns": [[1, 2, 3]], "args": {}}), "result.sizes.returns[0]: expected 2 items, got 3"),
    (_result(leaves=[{"type": "torch.Tensor", "plain": True, "storage": True, "extra": 1}]),
     "result.leaves[0]: unknown key(s) extra"),
    (b'{"event": "result", "ops": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "not JSON"),
    (b"\xff\x00 not json", "not JSON"),
    (b"[1, 2]", "not an object with a string 'event'"),
    (b'{"event": "passed"}', "unknown event 'passed'"),
])
def test_a_malformed_report_is_refused_with_the_first_bad_field(raw, error):
    with pytest.raises(ProtocolError) as exc:
        parse_message(raw)
    assert str(exc.value).startswith(error), str(exc.value)


def test_a_reply_must_carry_the_nonce_of_the_request_it_answers():
    assert parse_message(encode(RESULT, reply_to=5), CallReport.EVENTS, reply_to=5) == RESULT
    for raw in (encode(RESULT, reply_to=6), encode(RESULT)):
        with pytest.raises(ProtocolError, match="does not answer the request it came after"):
            parse_message(raw, CallReport.EVENTS, reply_to=5)
    with pytest.raises(ProtocolError, match="unknown key"):
        parse_message(encode(RESULT, reply_to=5), CallReport.EVENTS)  # no request was made: no nonce is due


def test_a_message_that_is_not_the_one_due_is_refused():
    raw = encode(Ready(event="ready", entry_point_found=True, tampering=()))
    with pytest.raises(ProtocolError, match="a 'ready' message where 'result' or 'error' was due"):
        parse_message(raw, CallReport.EVENTS)


# --- no dead evidence ----------------------------------------------------------------------------------------

# Dataclasses the evaluator writes whole into result rows (`to_dict()`): every field reaches the results file.
RECORDED = {Kernel: "profile.kernels", Timing: ".timing.to_dict()"}


def _attributes_read(folder: Path) -> set[str]:
    names: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                names.add(node.attr)
    return names


def test_every_field_the_worker_sends_is_read_by_the_evaluator():
    """By name, over the evaluator's syntax trees (a field named like some other attribute could hide: keep
    field names specific)."""
    evaluator = Path(kernelgenbench.__file__).parent / "evaluator"
    read = _attributes_read(evaluator)
    runner = (evaluator / "rounds.py").read_text()  # one workload's rounds and its timing
    classes = [c for c in vars(protocol).values()
               if isinstance(c, type) and dataclasses.is_dataclass(c) and c is not protocol.Message]
    assert len(classes) >= 13
    unread = []
    for cls in classes:
        if cls in RECORDED:
            assert RECORDED[cls] in runner, f"{cls.__name__} is no longer written whole into result rows"
            continue
        unread += [f"{cls.__name__}.{f.name}" for f in dataclasses.fields(cls) if f.name not in read]
    assert not unread, f"sent by the worker, read by no judge: {unread}"


# --- forged reports in a real run ----------------------------------------------------------------------------

FORGER = '''
import gc
from multiprocessing.connection import Connection

import torch

FORGED = {raw!r}


def add_Tensor(self, other, *, alpha=1):
    # The worker's pipe to the evaluator, found on the heap: the forged report goes out before the real one.
    conn = next(o for o in gc.get_objects() if type(o) is Connection and not o.closed and o.writable)
    conn.send_bytes(FORGED)
    return torch.add(self, other, alpha=alpha)
'''

FORGERIES = {
    "extra_key": _result(verdict="passed"),
    "wrong_type": _result(launches=1),
    "missing_key": _result(profile=dataclasses.MISSING),
    "huge_number": _result(launch_ranges=10**30),
    "nested_junk": b'{"event": "result", "ops": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "not_due": encode(Ready(event="ready", entry_point_found=True, tampering=())),
    # Well typed and clean, but not carrying the request's nonce, which only the worker's own reply echoes.
    "well_typed": _result(tampering=[]),
}


def test_forged_reports_are_tampering_and_the_run_goes_on(tmp_path, monkeypatch):
    from kernelgenbench.evaluator import candidates

    monkeypatch.setattr(candidates, "check_source", lambda code, filename="": PASS)  # gc is refused statically
    rows = [{"task_id": "aten/add.Tensor", "code": FORGER.format(raw=raw), "candidate_id": f"forged:{name}"}
            for name, raw in FORGERIES.items()]
    rows += [r for r in example_rows() if r["candidate_id"] == "example:aten__add.Tensor"]
    out = tmp_path / "results.jsonl"
    results = kernelgenbench.evaluate(write_jsonl(tmp_path / "solutions.jsonl", rows), dataset=EXAMPLE_TASKS,
                                      device="cpu", out=out, call_timeout_s=60, workers=2, seed=1)
    got = {r.candidate_id: (r.status, r.evidence) for r in results}
    assert got.pop("example:aten__add.Tensor") == (Status.PASSED, "")
    wrong = {c: (s, e[:300]) for c, (s, e) in got.items()
             if s is not Status.TAMPERING or "malformed worker report: " not in e}
    assert not wrong and len(got) == len(FORGERIES)
    assert sorted(r["candidate_id"] for r in task_rows(out)) == sorted(r["candidate_id"] for r in rows)
