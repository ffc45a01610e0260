"""kgb prompt: signatures from params, a prompt per source, JSON output, and where the dataset comes from."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from dataset_fixtures import add_out_record, all_records, rms_norm_record, saxpy_record, write_jsonl
from records import add_tensor_record

from kernelgenbench.dataset.build import build_dataset
from kernelgenbench.dataset.record import Param, Task
from kernelgenbench.evaluator.prompt import _default, build_prompt, python_signature


def _p(kind: str, default: str | None, *, type_: str = "", optional: bool = False) -> Param:
    return Param(name="x", type=type_ or kind, kind=kind, mutable=False, optional=optional, default=default,
                 keyword_only=False)


@pytest.mark.parametrize(
    ("param", "expected"),
    [
        (_p("int", "Mean"), "1"),
        (_p("int", "-1"), "-1"),
        (_p("float", "1e-05"), "1e-05"),
        (_p("float", "inf"), "float('inf')"),
        (_p("bool", "False"), "False"),
        (_p("int_list", "[]"), "()"),
        (_p("int_list", "[0,1]"), "(0, 1)"),
        (_p("optional_tensor", "None", optional=True), "None"),
        (_p("str", "'none'"), "'none'"),
        (_p("str", "none"), "'none'"),
        (_p("memory_format", "contiguous_format"), "torch.contiguous_format"),
        (_p("scalar_type", "long"), "torch.long"),
        (_p("int", None), None),
    ],
)
def test_defaults_render_as_python(param: Param, expected: str | None) -> None:
    assert _default(param) == expected


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (add_tensor_record(),
         "def add_Tensor(self: torch.Tensor, other: torch.Tensor, *, alpha: int | float | bool = 1) -> torch.Tensor:"),
        (add_out_record(),
         "def add_out(self: torch.Tensor, other: torch.Tensor, *, alpha: int | float | bool = 1, out: torch.Tensor)"
         " -> torch.Tensor:"),
        (rms_norm_record(),
         "def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:"),
        (saxpy_record(),
         "def cublasSaxpy_v2(n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:"),
    ],
    ids=lambda v: v["id"] if isinstance(v, dict) else "",
)
def test_signature_is_valid_python_with_hints_and_keyword_only_star(record: dict, expected: str) -> None:
    sig = python_signature(Task.from_dict(record))
    assert sig == expected
    ast.parse(f"import torch\n{sig}\n    ...\n")


def test_optional_and_list_params_get_their_hints() -> None:
    r = add_tensor_record()
    r["params"][1].update(kind="optional_tensor", type="Tensor?", optional=True, default="None")
    r["params"].insert(2, {**r["params"][0], "name": "dims", "type": "int[]?", "kind": "int_list",
                           "optional": True, "default": "None"})
    r["returns"].append({"name": "indices", "type": "Tensor", "kind": "tensor", "alias": None})
    assert python_signature(Task.from_dict(r)) == (
        "def add_Tensor(self: torch.Tensor, other: torch.Tensor | None = None, dims: list[int] | None = None, *, "
        "alpha: int | float | bool = 1) -> tuple[torch.Tensor, torch.Tensor]:"
    )


def test_aten_prompt_says_what_is_forbidden_and_how_it_is_called() -> None:
    text = build_prompt(Task.from_dict(add_out_record())).text
    assert "Define `add_out` so that it can be called exactly as `torch.ops.aten.add.out` is" in text
    assert "torch.ops.aten.*" in text and "C++/CUDA extensions" in text and "subprocesses" in text
    assert "The op writes: out (out)" in text
    assert "def add_out(self, other, *, alpha=1, out):" in text  # the reference source
    assert "  - `self`: float32[5, 7] ~ normal\n  - `other`: float32[7] ~ normal\n  - `alpha`: 2\n" in text
    assert "- float32: atol=1e-05, rtol=1.3e-06" in text
    assert "Triton on cuda, rocm devices." in text


def test_portable_aten_prompt_names_the_interpreter() -> None:
    text = build_prompt(Task.from_dict(add_tensor_record())).text
    assert "Deliver one self-contained Python module that defines `add_Tensor`" in text
    assert "Any Triton backend" in text and "TRITON_INTERPRET=1" in text
    assert "The op writes none of its arguments" in text


def test_vllm_prompt_shows_the_generator_and_its_params() -> None:
    p = build_prompt(Task.from_dict(rms_norm_record()))
    assert p.dtypes == ("bfloat16",)
    assert "def rms_norm_inputs(params, *, seed, device):" in p.text
    assert '- `c0` (correctness): bf16 [7, 768]\n  - generator params: `{"dtype": "bfloat16", "hidden": 768, "tokens": 7}`' in p.text
    assert "Importing vllm or calling its ops (torch.ops._C*" in p.text
    assert "`Tensor!` are outputs or in-out buffers" in p.text
    # only the tested dtype's tolerance is shown; the JSON form keeps every dtype the record lists
    assert "- bfloat16: atol=0.01, rtol=0.016" in p.text and "- float32:" not in p.text
    assert sorted(p.to_json()["tolerance"]) == ["bfloat16", "float32"]


def test_dtypes_come_from_specs_and_dtype_params_only() -> None:
    r = rms_norm_record()
    r["workloads"][1]["params"].update(cache_dtype="float8_e4m3fn", kv_cache_dtype="fp8", out_dtype="auto")
    assert build_prompt(Task.from_dict(r)).dtypes == ("bfloat16", "float8_e4m3fn")


def test_cublas_prompt_forbids_cublas_and_describes_the_c_convention() -> None:
    p = build_prompt(Task.from_dict(saxpy_record()))
    assert "cuBLAS in any form: ctypes/cffi bindings, cupy" in p.text and "torch.matmul" in p.text
    assert "the routine's C parameters minus the handle" in p.text
    assert "- `alpha`: `const float *` (float, dtype float32) — Scale of x (host scalar)." in p.text
    assert "The op writes: y (inout)" in p.text


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("prompt")
    build_dataset([write_jsonl(tmp / "r.jsonl", all_records())], tmp / "ds")
    return tmp / "ds"


def _main(argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from kernelgenbench.cli.main import main

    monkeypatch.setattr(sys, "argv", ["kgb", *argv])
    with pytest.raises(SystemExit) as info:
        main()
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out, captured.err


@pytest.mark.parametrize("task_id", ["aten/add.Tensor", "vllm/rms_norm", "cublas/cublasSaxpy_v2"])
def test_cli_prompt_json_for_each_source(task_id: str, dataset: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _main(["prompt", task_id, "--dataset", str(dataset), "--format", "json"], monkeypatch, capsys)
    doc = json.loads(out)
    assert rc == 0 and doc["task_id"] == task_id
    assert doc["python_signature"].startswith(f"def {doc['entry_point']}(")
    assert doc["reference_code"] and doc["forbidden"] and doc["tolerance"] and doc["workloads"]
    assert doc["text"].startswith(f"# Task {task_id}\n")


def test_cli_prompt_takes_the_dataset_from_the_environment(dataset: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("KGB_DATASET", str(dataset))
    rc, out, _ = _main(["prompt", "cublas/cublasSaxpy_v2"], monkeypatch, capsys)
    assert rc == 0 and out.startswith("# Task cublas/cublasSaxpy_v2\n")


def test_cli_prompt_reads_a_jsonl_whatever_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", all_records())
    rc, out, _ = _main(["prompt", "aten/mul.Tensor", "--dataset", str(path)], monkeypatch, capsys)
    assert rc == 0 and "def mul_Tensor(self: torch.Tensor, other: torch.Tensor) -> torch.Tensor:" in out


def test_cli_prompt_errors_are_one_line(dataset: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("KGB_DATASET", raising=False)
    rc, _, err = _main(["prompt", "aten/add.Tensor"], monkeypatch, capsys)
    assert rc == 2 and err == ("kgb: error: no dataset given: pass --dataset PATH_OR_REPO_ID (a `kgb build` folder, "
                               "a Hub id or a JSONL of records) or set KGB_DATASET\n")
    rc, _, err = _main(["prompt", "aten/mul.Tensor", "--dataset", str(dataset)], monkeypatch, capsys)
    assert rc == 2 and err == (f"kgb: error: task aten/mul.Tensor is not in {dataset} config ms (4 tasks); "
                               "try --config aten-all for uncurated ATen tasks\n")
    rc, out, _ = _main(["prompt", "aten/mul.Tensor", "--dataset", str(dataset), "--config", "aten-all"],
                       monkeypatch, capsys)
    assert rc == 0 and out.startswith("# Task aten/mul.Tensor\n")


def _example(task_id: str) -> Task:
    from eval_helpers import EXAMPLE_TASKS

    return next(Task.from_dict(r) for r in map(json.loads, EXAMPLE_TASKS.read_text().splitlines())
                if r["id"] == task_id)


def test_prompt_shows_only_the_functions_the_reference_and_generator_use() -> None:
    import torch

    from kernelgenbench.evaluator.prompt import build_prompt

    task = _example("vllm/rms_norm")
    p = build_prompt(task)
    # the record is untouched; the prompt holds the task's own reference and generator and what they call
    assert "def fused_add_rms_norm(" in task.reference.code and "def fused_add_rms_norm(" not in p.text
    assert "def rms_norm(" in p.reference_code and "def _normed(" in p.reference_code
    assert "def make_rms_norm_inputs(" in p.inputs_code and "def rms_norm(" not in p.inputs_code
    assert "FP8_MAX" not in p.text and len(p.text) < len(task.reference.code)
    # the pruned text still runs and gives the reference's answer
    ns: dict = {}
    exec(compile(p.inputs_code, "<prompt inputs>", "exec"), ns)
    exec(compile(p.reference_code, "<prompt reference>", "exec"), ns)
    full: dict = {}
    exec(compile(task.reference.code, "<record>", "exec"), full)
    args = ns["make_rms_norm_inputs"]({"num_tokens": 3, "hidden_size": 64, "dtype": "float32"}, seed=1, device="cpu")
    want = args["result"].clone()
    full["rms_norm"](want, args["input"], args["weight"], args["epsilon"])
    ns["rms_norm"](**args)
    assert torch.equal(args["result"], want)


def test_pruning_keeps_what_it_cannot_read_and_every_dependency_kind() -> None:
    from kernelgenbench.evaluator.prompt import prune_module

    assert prune_module("def f(:\n", "f") == "def f(:\n"  # unparsable: whole
    assert prune_module("x = 1\n", "nope") == "x = 1\n"  # function absent: whole
    code = ("'''doc'''\nfrom __future__ import annotations\nimport math\nimport os\nK = 2\nJ = 3\n\n\n"
            "def deco(f):\n    return f\n\n\n@deco\ndef helper(x=K):\n    return math.sqrt(x)\n\n\n"
            "def f(x):\n    return helper(x)\n\n\ndef other():\n    return os.getcwd() + str(J)\n")
    got = prune_module(code, "f")
    assert "def f(" in got and "@deco\ndef helper(" in got and "def deco(" in got and "K = 2" in got
    assert "import math" in got and "from __future__" in got
    assert "def other(" not in got and "import os" not in got and "J = 3" not in got and "doc" not in got
    ns: dict = {}
    exec(got, ns)
    assert ns["f"](4) == 2.0


def test_prompt_forbids_host_compute() -> None:
    from kernelgenbench.evaluator.prompt import build_prompt

    text = build_prompt(_example("aten/add.Tensor")).text
    assert "numpy" in text and ".tolist()" in text and "data_ptr()" in text
