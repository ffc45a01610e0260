"""The ATen extraction of the installed torch, run once for the whole session."""

from __future__ import annotations

from collections import Counter

import pytest
import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.evaluator.cost import workload_cost
from kernelgenbench.evaluator.inputs import load_code, make_args, split_call_args
from kernelgenbench.extractors.aten import extract, trace_workloads
from kernelgenbench.extractors.aten.data_files import curated_names
from kernelgenbench.extractors.aten.out_workloads import meta_value


@pytest.fixture(scope="session")
def aten_result():
    return extract()


@pytest.fixture(scope="session")
def by_id(aten_result):
    return {r["id"]: r for r in aten_result.records}


@pytest.fixture(scope="session")
def curated_tasks(aten_result):
    return [r for r in aten_result.records if r["benchmarks"]]


def test_one_valid_record_per_overload(aten_result):
    import torchgen  # the packaged yaml: count its entries independently of the extractor
    import yaml

    from kernelgenbench.extractors.aten.yaml_source import installed_source

    entries = yaml.load(installed_source().native_functions.read_text(), Loader=yaml.CSafeLoader)
    assert torchgen is not None and len(entries) > 2000
    funcs = {e["func"].split("(")[0] for e in entries}
    assert {r["id"].removeprefix("aten/") for r in aten_result.records} == funcs
    assert aten_result.skipped == () and aten_result.invalid == ()
    bad = {r["id"]: errs[0] for r in aten_result.records if (errs := record_errors(r))}
    assert bad == {}


def test_cross_check_with_registered_schemas(aten_result, by_id):
    registered = {str(s) for s in torch._C._jit_get_all_schemas()}
    assert "aten::" + by_id["aten/add.Tensor"]["signature"] in registered
    assert by_id["aten/add.Tensor"]["details"]["aten"]["registered"] is True
    assert len(aten_result.registered_mismatches) == sum(
        not r["details"]["aten"]["registered"] for r in aten_result.records)


def test_every_curated_name_resolves(aten_result):
    names = Counter(r["details"]["aten"]["curated_name"] for r in aten_result.records)
    assert len(curated_names()) == 110
    assert [n for n in curated_names() if names[n] == 0] == []
    assert aten_result.unmatched_curated == ()


def test_curated_tasks_have_both_purposes(curated_tasks):
    lacking = [r["id"] for r in curated_tasks
               if {w["purpose"] for w in r["workloads"]} != {"correctness", "performance"}]
    assert lacking == []
    assert all(r["benchmarks"] == ["ms", "mc"] and r["platforms"] == ["any"] for r in curated_tasks)


def test_uncurated_tasks_say_why_they_lack_workloads(aten_result):
    for r in aten_result.records:
        if r["workload_status"]["state"] != "ok":
            assert r["workload_status"]["reason"], r["id"]


def test_add_relations_and_fields(by_id):
    r = by_id["aten/add.Tensor"]
    assert r["entry_point"] == "add_Tensor"
    assert by_id["aten/add_.Tensor"]["entry_point"] == "add__Tensor"
    assert by_id["aten/sum"]["entry_point"] == "sum"
    a = r["details"]["aten"]
    assert (a["functional"], a["inplace"], a["out"]) == ("aten/add.Tensor", "aten/add_.Tensor", "aten/add.out")
    assert a["schema_kind"] == "functional" and by_id["aten/add.out"]["details"]["aten"]["schema_kind"] == "out"
    assert "pointwise" in r["tags"] and r["category"] == "elementwise"
    assert r["description"].startswith("add(input, other, *, alpha=1, out=None)")
    assert r["provenance"]["file"] == "aten/src/ATen/native/native_functions.yaml"
    assert r["provenance"]["version"] == torch.__version__
    line = r["provenance"]["line"]
    from kernelgenbench.extractors.aten.yaml_source import installed_source

    text = installed_source().native_functions.read_text().splitlines()
    assert text[line - 1] == "- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"


def test_semantics(by_id):
    assert by_id["aten/bernoulli"]["semantics"] == "random"
    assert by_id["aten/exponential_"]["semantics"] == "random"
    assert by_id["aten/empty_strided"]["semantics"] == "uninitialized"
    assert by_id["aten/new_empty_strided"]["semantics"] == "uninitialized"
    assert by_id["aten/expand"]["semantics"] == "view"
    assert by_id["aten/t"]["semantics"] == "view"
    assert by_id["aten/add_.Tensor"]["semantics"] == "deterministic"


def test_opinfo_samples_are_attributed_to_the_overload_that_ran(by_id):
    # torch.add(x, 2) wraps the number and reaches add.Tensor: OpInfo 'add' samples never land on add.Scalar.
    assert any(w["origin"].startswith("opinfo:add#") for w in by_id["aten/add.Tensor"]["workloads"])
    assert not any(w["origin"].startswith("opinfo:add#") for w in by_id["aten/add.Scalar"]["workloads"])
    assert any(w["origin"].startswith("opinfo:add:inplace#") for w in by_id["aten/add_.Tensor"]["workloads"])
    # linear decomposes before dispatch: its correctness comes from the default template, its performance
    # from the model trace (seen at the torch level there)
    origins = [(w["purpose"], w["origin"].split(":")[0]) for w in by_id["aten/linear"]["workloads"]]
    assert ("correctness", "default") in origins
    assert [o for o in origins if o[0] == "performance"] == [("performance", "trace")] * 4


def _run(task: Task, workload, device: str):
    kwargs = make_args(task, workload, seed=0, device=device)
    args, kw = split_call_args(task, kwargs)
    return load_code(task.reference)(*args, **kw)


def test_references_run_on_cpu_on_correctness_workloads(curated_tasks):
    failures = []
    for r in curated_tasks:
        task = Task.from_dict(r)
        for w in task.correctness_workloads:
            try:
                _run(task, w, "cpu")
            except Exception as exc:  # noqa: BLE001 - collect every failure, then report them together
                failures.append(f"{task.id} {w.id} {w.origin}: {type(exc).__name__}: {str(exc)[:120]}")
    assert failures == []


def _nbytes(value) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0


# Ops whose performance case is inherently small: a scalar read, a scalar made into a tensor.
_SCALAR_OPS = {"item", "_local_scalar_dense", "scalar_tensor"}


def test_performance_workloads_are_accepted_realistic_and_costed(curated_tasks):
    failures, small = [], []
    for r in curated_tasks:
        task = Task.from_dict(r)
        fn = load_code(task.reference)
        for w in task.performance_workloads:
            kwargs = {k: meta_value(v) for k, v in w.args.items()}
            args, kw = split_call_args(task, kwargs)
            if task.name in _SCALAR_OPS:
                _run(task, w, "cpu")  # no meta kernel for a scalar read
                continue
            try:
                try:
                    out = fn(*args, **kw)
                except (RuntimeError, NotImplementedError) as exc:
                    if "meta" not in str(exc):
                        raise
                    out = _run(task, w, "cpu")  # reads a value (narrow.Tensor's start): real tensors
            except Exception as exc:  # noqa: BLE001 - collect every failure
                failures.append(f"{task.id}: {type(exc).__name__}: {str(exc)[:120]}")
                continue
            cost = workload_cost(task.cost, kwargs, out)
            if not (cost and cost["bytes"] >= 0 and cost["flops"] >= 0):
                failures.append(f"{task.id}: cost {task.cost} gives {cost}")
            moved = _nbytes(list(kwargs.values())) + _nbytes(out)
            # traced shapes are real models' (launch-overhead-sized ones already left out); defaults are large
            if moved < (trace_workloads.MIN_BYTES if w.origin.startswith("trace:") else 16 * 2**20):
                small.append((task.id, moved))
    assert failures == []
    assert small == []


def test_outputs_with_documented_free_tie_order_declare_compare_rules(by_id):
    from kernelgenbench.evaluator.judge import judge_call
    from kernelgenbench.evaluator.status import Status

    rules = lambda tid: [(c["target"], c["mode"], c.get("unless")) for c in by_id[tid].get("compare", [])]  # noqa: E731
    assert rules("aten/sort") == [("return[1]", "ties_allowed", None)]
    assert rules("aten/sort.values_stable") == [("return[1]", "ties_allowed", "stable"), ("indices", "ties_allowed", "stable")]
    assert rules("aten/argmax") == [] and rules("aten/add.Tensor") == []  # argmax: "the first maximal value"
    task = Task.from_dict(by_id["aten/sort.stable"])
    x = torch.tensor([[2.0, 1.0, 2.0, 1.0, 3.0], [0.0, 0.0, 0.0, 5.0, 5.0]])
    from evidence_helpers import call_report

    from kernelgenbench.sandbox.worker import _leaf_meta

    leaves = [_leaf_meta(torch.zeros(1), {})] * 2  # what the worker reports for a plain tensor on the CPU
    header = call_report(leaves=leaves)
    for stable in (False, True):
        args = {"self": x, "stable": stable, "dim": -1, "descending": True}
        pos, kw = split_call_args(task, args)
        values, idx = load_code(task.reference)(*pos, **kw)
        other = torch.tensor([[4, 2, 0, 3, 1], [4, 3, 2, 1, 0]])  # same values, ties the other way round
        assert not torch.equal(other, idx) and torch.equal(x.gather(1, other), values)
        verdict, _ = judge_call(task, header, {"returns": [values.clone(), other], "args": {"self": x.clone()}},
                                ref_return=(values, idx), ref_args=args, pristine=args, device="cpu")
        assert verdict.status is (Status.INCORRECT_NUMERICS if stable else Status.PASSED), verdict.evidence


def test_scatter_src_accepts_any_of_colliding_writes(by_id):
    import dataclasses

    from kernelgenbench.evaluator.judge import judge_call
    from kernelgenbench.evaluator.status import Status

    rules = lambda tid: [(c["target"], c["mode"]) for c in by_id[tid].get("compare", [])]  # noqa: E731
    assert rules("aten/scatter.src") == [("return[0]", "any_valid")]
    assert rules("aten/scatter.src_out") == [("return[0]", "any_valid"), ("out", "any_valid")]
    assert rules("aten/scatter.value") == [] and rules("aten/scatter.reduce") == []
    task = Task.from_dict(by_id["aten/scatter.src"])
    args = {"self": torch.zeros(2, 4), "dim": 1, "index": torch.tensor([[1, 1, 3], [0, 2, 2]]),
            "src": torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])}
    pos, kw = split_call_args(task, args)
    ref = load_code(task.reference)(*pos, **kw)
    other = ref.clone()
    other[0, 1] = 3.0 - other[0, 1]  # the other of the two writes to [0, 1] (1.0 or 2.0)
    from evidence_helpers import call_report

    from kernelgenbench.sandbox.worker import _leaf_meta

    header = call_report(leaves=[_leaf_meta(ref, {})])

    def judge(t, out):
        return judge_call(t, header, {"returns": [out], "args": {k: v for k, v in args.items()}}, ref_return=ref,
                          ref_args=args, pristine=args, device="cpu")[0]
    assert judge(task, other).passed
    assert judge(dataclasses.replace(task, compare=()), other).status is Status.INCORRECT_NUMERICS
    other[1, 0] = 7.0
    assert judge(task, other).status is Status.INCORRECT_NUMERICS
