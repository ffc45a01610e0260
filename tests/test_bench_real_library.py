"""bench/real_library_corpus.py on CPU: the candidate templates, the direct check and the classification.

FlagGems and Liger-Kernel are not installed here (they need a GPU); the wrappers are exercised on real
torch functions and on modules written to a temporary folder, and the Liger adapters are checked as text.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from dataset_fixtures import rms_norm_record
from records import add_tensor_record

from kernelgenbench.dataset.record import Param, Task
from kernelgenbench.evaluator.static_checks import check_source

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "real_library_corpus.py"


@pytest.fixture(scope="module")
def rlc():
    spec = importlib.util.spec_from_file_location("real_library_corpus", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _entry(code: str, name: str):
    namespace: dict = {"__name__": "candidate_under_test"}
    exec(compile(code, "<candidate>", "exec"), namespace)  # noqa: S102 - code under test
    return namespace[name]


def _with_params(task: Task, *params: Param) -> Task:
    return dataclasses.replace(task, params=tuple(params))


def test_help_of_script_and_every_subcommand():
    for args in ([], ["dataset"], ["candidates"], ["direct"], ["classify"]):
        out = subprocess.run([sys.executable, str(SCRIPT), *args, "--help"], capture_output=True, text=True,
                             cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        assert "usage:" in out.stdout


def test_liger_rms_norm_adapter_is_a_clean_candidate_with_the_ops_parameters(rlc):
    task = Task.from_dict(rms_norm_record())
    rows = rlc.adapter_candidates({task.id: task}, "liger", "0.8.5")
    assert [r["task_id"] for r in rows] == ["vllm/rms_norm"]
    row = rows[0]
    assert row["library"] == "liger" and row["function"] == "liger_kernel.functional.rms_norm"
    tree = ast.parse(row["code"])
    imports = [(n.module, [a.name for a in n.names]) for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert ("liger_kernel.functional", ["rms_norm"]) in imports
    (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert fn.name == "rms_norm" and [a.arg for a in fn.args.args] == ["out", "input", "weight", "epsilon"]
    assert check_source(row["code"]).passed, check_source(row["code"]).evidence


def test_adapter_refuses_a_task_of_another_arity(rlc):
    task = Task.from_dict(rms_norm_record())
    with pytest.raises(ValueError, match="adapter expects 4 plain parameters"):
        rlc.wrap_adapter(_with_params(task, *task.params[:3]), rlc.ADAPTERS[0], "x")


def test_wrapped_function_is_called_as_the_dispatcher_calls_a_python_kernel(rlc, tmp_path, monkeypatch):
    (tmp_path / "echo_impl.py").write_text("def echo(*args, **kwargs):\n    return args, kwargs\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    base = Task.from_dict(add_tensor_record())
    self_, other, alpha = base.params
    keepdim = Param("keepdim", "bool", "bool", False, False, "False", False)
    dim = Param("dim", "int[1]?", "int_list", False, True, "None", False)
    task = _with_params(base, self_, other, dim, keepdim, alpha)
    code = rlc.wrap_function(task, "echo_impl", "echo", "test")
    assert check_source(code).passed, check_source(code).evidence
    call = _entry(code, task.entry_point)
    x = torch.ones(2)
    # trailing positional defaults and keyword-only defaults are left out, as the dispatcher does
    assert call(x, x) == ((x, x), {})
    assert call(x, x, None, False, alpha=1) == ((x, x), {})
    # a non-default value is passed; a positional given by keyword goes by position; defaults fill gaps
    assert call(x, x, [0]) == ((x, x, [0]), {})
    assert call(x, x, keepdim=True) == ((x, x, None, True), {})
    assert call(x, x, alpha=2) == ((x, x), {"alpha": 2})
    # a default compares by type: 1.0 is not the int default 1
    assert call(x, x, alpha=1.0) == ((x, x), {"alpha": 1.0})


def test_wrapped_real_function_computes_through_the_library_call(rlc):
    task = Task.from_dict(add_tensor_record())
    code = rlc.wrap_function(task, "torch", "add", "torch.add as the library")
    add = _entry(code, "add_Tensor")
    a, b = torch.randn(5), torch.randn(5)
    assert torch.equal(add(a, b), a + b)
    assert torch.allclose(add(a, b, alpha=3), a + 3 * b)


def test_importable_path_follows_the_function_back(rlc):
    assert rlc.importable_path(torch.nn.functional.relu) == ("torch.nn.functional", "relu")
    assert rlc.importable_path(lambda x: x) is None


def test_parse_lib_patches_reads_the_patch_table(rlc):
    src = '''
def apply_gems_patches_to_vllm(verbose=True):
    module_patches = [(RMSNorm, "forward_cuda", custom_gems_rms_forward_cuda)]
    lib_patches = [
        ("_C", "rms_norm", custom_rms_norm_out),
        ("_moe_C", "moe_sum", custom_moe_sum),
    ]
    for lib_name, fn_name, fn in lib_patches:
        patch_vllm_lib(lib_name, fn_name, fn, dispatch_key, verbose)
'''
    assert rlc.parse_lib_patches(src) == {"rms_norm": "custom_rms_norm_out", "moe_sum": "custom_moe_sum"}


def test_same_named_dropins_need_the_ops_exact_parameter_count(rlc):
    task = Task.from_dict(rms_norm_record())

    class Lib:
        @staticmethod
        def rms_norm(out, x, w, eps):
            return None

    class Other:
        @staticmethod
        def rms_norm(x, residual, normalized_shape, weight, eps=1e-5):
            return None

    assert list(rlc.same_named_dropins([task], Lib)) == ["rms_norm"]
    assert rlc.same_named_dropins([task], Other) == {}


def test_correctness_only_dataset_validates(rlc, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps(add_tensor_record()) + "\n" + json.dumps(rms_norm_record()) + "\n")
    out = tmp_path / "tasks.jsonl"
    assert rlc.write_dataset([src], out, config=None, performance=False) == 2
    tasks = rlc.load_dataset(str(out), None)
    assert all(w.purpose == "correctness" for t in tasks.values() for w in t.workloads)
    assert tasks["vllm/rms_norm"].to_dict()["workload_status"]["state"] == "partial"
    assert rlc.write_dataset([src], out, config="vllm", performance=True) == 1


def test_compare_call_tolerance_exactness_and_nan(rlc):
    task = Task.from_dict(add_tensor_record())
    r = torch.tensor([1.0, float("nan"), 3.0])
    assert rlc.compare_call(task, r, {}, r + 1e-7, {})[0]
    ok, detail, err = rlc.compare_call(task, r, {}, r + 1e-2, {})
    assert not ok and "outside atol" in detail and err == pytest.approx(1e-2, rel=1e-3)
    assert not rlc.compare_call(task, torch.tensor([1, 2]), {}, torch.tensor([1, 3]), {})[0]
    assert not rlc.compare_call(task, r, {}, r.double(), {})[0]
    assert not rlc.compare_call(task, (r, r), {}, (r,), {})[0]
    assert not rlc.compare_call(task, 3, {}, torch.tensor([3, 3]), {})[0]
    assert rlc.compare_call(task, 0.5, {}, 0.5 + 1e-9, {})[0]


def _row(task_id: str, cid: str, code: str) -> dict:
    return {"task_id": task_id, "candidate_id": cid, "code": code, "library": "test", "method": "m"}


def test_direct_check_agree_differ_exception_and_torch_ops(rlc, tmp_path):
    task = Task.from_dict(add_tensor_record())
    rows = [
        _row(task.id, "right", "import torch\n\ndef add_Tensor(self, other, *, alpha=1):\n    return torch.add(self, other, alpha=alpha)\n"),
        _row(task.id, "wrong", "import torch\n\ndef add_Tensor(self, other, *, alpha=1):\n    return self - other\n"),
        _row(task.id, "raises", "def add_Tensor(self, other, *, alpha=1):\n    raise NotImplementedError('no')\n"),
    ]
    out = tmp_path / "direct.jsonl"
    assert rlc.run_direct(rows, {task.id: task}, out, device=torch.device("cpu"), rounds=1, seed=0,
                          performance=False) == 0
    got = {r["candidate_id"]: r for r in map(json.loads, out.read_text().splitlines()) if r["kind"] == "direct"}
    assert got["right"]["verdict"] == "agree" and got["right"]["compute_ops"] == ["aten::add.Tensor"]
    assert got["wrong"]["verdict"] == "differ" and "outside atol" in got["wrong"]["detail"]
    assert got["raises"]["verdict"] == "exception" and "NotImplementedError: no" in got["raises"]["detail"]
    # resumable: a candidate started but never finished is recorded as having died, the rest is skipped
    with out.open("a") as fh:
        fh.write(json.dumps({"kind": "started", "candidate_id": "dies"}) + "\n")
    rlc.run_direct(rows + [_row(task.id, "dies", "x")], {task.id: task}, out, device=torch.device("cpu"),
                   rounds=1, seed=0, performance=False)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    died = [r for r in lines if r["candidate_id"] == "dies" and r["kind"] == "direct"]
    assert len(died) == 1 and "died" in died[0]["detail"]
    assert sum(r["kind"] == "direct" for r in lines) == 4


def test_a_shard_out_of_time_records_its_running_candidate_as_unfinished(rlc, tmp_path):
    out = tmp_path / "direct.jsonl"
    rows = [{"kind": "started", "candidate_id": "fast", "task_id": "aten/add.Tensor", "at": time.time() - 5},
            {"kind": "direct", "candidate_id": "fast", "verdict": "agree"},
            {"kind": "started", "candidate_id": "slow", "task_id": "aten/mm", "at": time.time() - 90}]
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert rlc.mark_unfinished(out, 100) == 1
    last = json.loads(out.read_text().splitlines()[-1])
    assert (last["candidate_id"], last["task_id"], last["verdict"]) == ("slow", "aten/mm", "unfinished")
    assert 89 <= last["elapsed_s"] < 120 and "limit of 100 s" in last["detail"]
    assert rlc.mark_unfinished(out, 100) == 0  # recorded once
    # an eval timeout with the direct call unfinished too is the library's slowness, not the evaluator's
    cls, reason = rlc.classify_one(_task_row("slow", "timeout", "no reply within 120 s"), last)
    assert cls == "library_slow" and "without returning" in reason
    assert rlc.classify_one(_task_row("slow", "timeout", "no reply"), _direct("slow", "agree"))[0] == "unexplained"


def _task_row(cid: str, status: str, evidence: str = "") -> dict:
    return {"kind": "task", "task_id": f"aten/{cid}", "candidate_id": cid, "status": status, "evidence": evidence,
            "model": "flaggems", "method": "flaggems-aten"}


def _direct(cid: str, verdict: str, ops=(), launches=3, detail="") -> dict:
    return {"kind": "direct", "candidate_id": cid, "verdict": verdict, "compute_ops": list(ops),
            "kernel_launches": launches, "detail": detail, "workload_id": "c0", "max_abs_err": 0.5}


def test_classify_explains_every_non_pass(rlc, tmp_path):
    results = [
        _task_row("a", "passed"), _task_row("b", "passed"), _task_row("c", "passed"),
        _task_row("t", "torch_fallback", "torch compute dispatched during the call: aten::mm"),
        _task_row("u", "torch_fallback", "torch compute dispatched during the call: aten::sum"),
        _task_row("d", "incorrect_numerics", "return: 3 of 9 elements outside"),
        _task_row("e", "runtime_error", "TypeError"),
        _task_row("n", "no_triton_launch", "no Triton kernel launched"),
        _task_row("x", "incorrect_numerics", "return: 1 of 9 elements outside"),
        _task_row("m", "timeout", "ran out"),
    ]
    direct = [_direct("a", "agree"), _direct("b", "agree"), _direct("c", "differ"),
              _direct("t", "agree", ops=["aten::mm"]), _direct("u", "agree"), _direct("d", "differ", detail="bad"),
              _direct("e", "exception", detail="TypeError: x"), _direct("n", "agree", launches=0),
              _direct("x", "agree")]
    candidates = [{"task_id": "aten/late", "candidate_id": "late", "code": "", "library": "flaggems", "method": "m"},
                  {"task_id": "aten/k", "library": "flaggems", "skipped": "not importable"}]
    report = rlc.classify(results, direct, candidates)
    assert [e["candidate_id"] for e in report["candidates"] if e["class"] == "not_run"] == ["late"]
    assert report["skipped"] == [candidates[1]]
    report["candidates"] = [e for e in report["candidates"] if e["class"] != "not_run"]
    cls = {e["candidate_id"]: e["class"] for e in report["candidates"]}
    assert cls == {"a": "passed", "b": "passed", "c": "passed", "t": "torch_inside", "u": "unexplained",
                   "d": "real_difference", "e": "library_exception", "n": "no_kernel", "x": "unexplained",
                   "m": "unexplained"}
    s = report["summary"]["flaggems"]
    # agree directly: a, b, t, u, n, x; of those a and b pass kgb eval
    assert (s["candidates"], s["passed"], s["agree_directly"], s["agree_and_passed"]) == (10, 3, 6, 2)
    assert s["share"] == pytest.approx(2 / 6, abs=1e-4)
    # t (torch inside) and n (no kernel) fail by policy: a, b, u, x remain, a and b pass
    assert (s["agree_without_policy_failures"], s["share_without_policy_failures"]) == (4, 0.5)
    text = rlc.render_markdown(report)
    assert "NOT met" in text and "`aten/x`" in text and "passes kgb eval, but directly: differ" in text
    # the command line writes both files
    paths = {}
    for name, rows in (("results", results), ("direct", direct)):
        paths[name] = tmp_path / f"{name}.jsonl"
        paths[name].write_text("".join(json.dumps(r) + "\n" for r in rows))
    md = tmp_path / "report.md"
    assert rlc.main(["classify", "--results", str(paths["results"]), "--direct", str(paths["direct"]),
                     "--out", str(md)]) == 0
    assert json.loads(md.with_suffix(".json").read_text())["summary"]["flaggems"]["passed"] == 3


def test_flaggems_vllm_wrapper_passes_the_static_checks(rlc):
    task = Task.from_dict(rms_norm_record())
    code = rlc.wrap_function(task, "flag_gems.patches.patch_vllm_all", "custom_rms_norm_out", "FlagGems")
    tree = ast.parse(code)
    imported = [n.names[0].name for n in tree.body if isinstance(n, ast.Import)]
    assert "flag_gems" in imported
    assert check_source(code).passed, check_source(code).evidence


def test_importable_path_falls_back_to_the_package_namespace(rlc, tmp_path, monkeypatch):
    pkg = tmp_path / "libpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from libpkg._impl import scaled\n")
    (pkg / "_impl.py").write_text("def scaled(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import libpkg

    fn = libpkg.scaled
    fn.__module__ = "libpkg.moved_away"  # as a backend module loaded under another name reports itself
    assert rlc.importable_path(fn) is None
    assert rlc.importable_path(fn, packages=("libpkg",)) == ("libpkg", "scaled")


def test_performance_lines_count_every_timing_under_its_floor(rlc):
    def row(task, t, floor, **bases):
        return {"kind": "workload", "purpose": "performance", "task_id": task, "candidate_id": "flaggems:x",
                "workload_id": "w0", "sol": {"available": True, "floor_us": floor},
                "timing": {"available": True, "time_us": t, **({"below_floor": True} if t < floor else {})},
                "baselines": {k: {"available": True, "time_us": v, **({"below_floor": True} if v < floor else {})}
                              for k, v in bases.items()}}
    results = [row("aten/a", 20.0, 10.0, torch=15.0), row("aten/b", 8.0, 10.0, torch=9.0, native=30.0),
               {"kind": "workload", "purpose": "correctness", "task_id": "aten/c", "timing": {"time_us": 1.0}}]
    text = "\n".join(rlc.performance_lines(results))
    assert "Timings under their speed-of-light floor: 2 (candidates and baselines, of 2 timed workloads)" in text
    assert "`aten/b` w0: candidate 8.00 us, floor 10.00 us" in text and "`aten/b` w0: torch 9.00 us" in text
    assert "| 2.00 | torch 15.00 (1.50) |" in text and "0.80 **below**" in text
    assert rlc.performance_lines(results[2:]) == []
