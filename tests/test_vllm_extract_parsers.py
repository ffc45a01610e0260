"""The vLLM extractor's parsers on small inline fixtures: exact results and exact error messages."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from kernelgenbench.errors import SourceParseError
from kernelgenbench.extractors.vllm.cpp_lexer import TokKind, decode_escapes, tokenize
from kernelgenbench.extractors.vllm.curated import CuratedEntry
from kernelgenbench.extractors.vllm.guards import platforms_for
from kernelgenbench.extractors.vllm.records import schema_differences, unique_param_names
from kernelgenbench.extractors.vllm.registrations import (
    BuildRule,
    BuildTable,
    Location,
    parse_registrations,
    scan_registrations,
)
from kernelgenbench.extractors.vllm.schemas import canonical_schema, parse_op_schema, type_kind
from kernelgenbench.extractors.vllm.static_eval import Evaluator, Unevaluable, module_env
from kernelgenbench.extractors.vllm.test_grids import TestScan, parse_test_module
from kernelgenbench.extractors.vllm.workloads import GridSource, plan_workloads, subsample
from kernelgenbench.extractors.vllm.wrappers import parse_wrappers

OLD_LAYOUT = r'''
#include "core/registration.h"
// TORCH_LIBRARY in a comment is not a block
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def(
      "weird(Tensor! out, str s=\"a\\tb\", "
      "float eps=1e-6) -> ()");
  ops.impl("weird", torch::kCUDA, &weird);
#ifndef USE_ROCM
  ops.def("cuda_only(Tensor x) -> Tensor");
#if defined(ENABLE_FP8) && CUDA_VERSION >= 12000
  ops.def("nested(Tensor x) -> Tensor", {at::Tag::needs_fixed_stride_order});
#else
  ops.def("nested_else(Tensor x) -> Tensor");
#endif
#else
  ops.def("rocm_only(Tensor x) -> ()");
#endif
  ops.def("name_only", &name_only);
  ops.impl("cuda_only", torch::kMeta, &meta_fn);
}

TORCH_LIBRARY_EXPAND(CONCAT(TORCH_EXTENSION_NAME, _cache_ops), cache_ops) {
  cache_ops.def("swap(Tensor! a, Tensor b) -> ()");
  cache_ops.impl("swap", torch::kCUDA, &swap);
}
'''

NEW_LAYOUT = r'''
#define TORCH_EXTENSION_NAME _C
STABLE_TORCH_LIBRARY_FRAGMENT(_moe_C, m) {
  m.def("topk(Tensor! w, Tensor g) -> ()");
  m.def("foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
}
STABLE_TORCH_LIBRARY_IMPL(_moe_C, CUDA, m) {
  m.impl("topk", TORCH_BOX(&topk));
}
STABLE_TORCH_LIBRARY_IMPL(_moe_C, CompositeExplicitAutograd, m) { m.impl("foo.out", TORCH_BOX(&f)); }
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) { ops.def("bar() -> int"); }
'''


def test_old_layout_defs_exactly() -> None:
    f = parse_registrations(OLD_LAYOUT, file="csrc/x.cpp", extension="_C")
    got = [(d.namespace, d.qualified_name, d.schema, d.location.line, d.guards, d.torch_tags, d.catch_all)
           for d in f.defs]
    assert got == [
        ("_C", "weird", 'weird(Tensor! out, str s="a\\tb", float eps=1e-6) -> ()', 5, (), (), False),
        ("_C", "cuda_only", "cuda_only(Tensor x) -> Tensor", 10, ("!defined(USE_ROCM)",), (), False),
        ("_C", "nested", "nested(Tensor x) -> Tensor", 12,
         ("!defined(USE_ROCM)", "defined(ENABLE_FP8) && CUDA_VERSION >= 12000"), ("needs_fixed_stride_order",), False),
        ("_C", "nested_else", "nested_else(Tensor x) -> Tensor", 14,
         ("!defined(USE_ROCM)", "!(defined(ENABLE_FP8) && CUDA_VERSION >= 12000)"), (), False),
        ("_C", "rocm_only", "rocm_only(Tensor x) -> ()", 17, ("defined(USE_ROCM)",), (), False),
        ("_C", "name_only", None, 19, (), (), True),
        ("_C_cache_ops", "swap", "swap(Tensor! a, Tensor b) -> ()", 24, (), (), False),
    ]
    assert [(i.namespace, i.qualified_name, i.dispatch_key, i.location.line) for i in f.impls] == [
        ("_C", "weird", "CUDA", 8), ("_C", "cuda_only", "Meta", 20), ("_C_cache_ops", "swap", "CUDA", 25)]


def test_adjacent_literal_escapes_decode_like_a_compiler() -> None:
    assert decode_escapes(r"a\"b\\c\x41\101\n", file="f", line=1) == 'a"b\\cAA\n'
    toks = tokenize(r'x = "ab" "cd" R"(raw \n)" u8"z";', file="f")
    assert [(t.kind, t.text) for t in toks if t.kind is TokKind.STRING] == [
        (TokKind.STRING, "ab"), (TokKind.STRING, "cd"), (TokKind.STRING, "raw \\n"), (TokKind.STRING, "z")]


def test_new_layout_namespaces_keys_and_overloads() -> None:
    f = parse_registrations(NEW_LAYOUT, file="csrc/moe/y.cpp", extension="_moe_C")
    assert [(d.namespace, d.name, d.overload, d.block) for d in f.defs] == [
        ("_moe_C", "topk", "", "STABLE_TORCH_LIBRARY_FRAGMENT"),
        ("_moe_C", "foo", "out", "STABLE_TORCH_LIBRARY_FRAGMENT"),
        ("_C", "bar", "", "TORCH_LIBRARY_EXPAND"),  # the file's own #define wins over the build table
    ]
    assert [(i.qualified_name, i.dispatch_key) for i in f.impls] == [("topk", "CUDA"), ("foo.out", "CompositeExplicitAutograd")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('TORCH_LIBRARY(_C, m) {\n  m.def("a(Tensor x) -> ()");\n  m.def("b(Tensor x) -> ()\n}\n',
         "csrc/bad.cpp:3: unterminated string literal"),
        ('TORCH_LIBRARY(_C, m) {\n#ifdef X\n  m.def("a() -> ()");\n}\n', "csrc/bad.cpp:2: #if without #endif"),
        ("TORCH_LIBRARY(NAME_OF(x), m) {\n}\n", "csrc/bad.cpp:1: cannot resolve the library name `NAME_OF ( x )`"),
        ('TORCH_LIBRARY(_C, m) {\n  m.def("a() -> ()");\n', "csrc/bad.cpp:2: TORCH_LIBRARY block is not closed"),
        ("/* open\nTORCH_LIBRARY(_C, m) {}\n", "csrc/bad.cpp:1: unterminated /* comment"),
    ],
)
def test_broken_file_messages(text: str, message: str) -> None:
    with pytest.raises(SourceParseError) as err:
        parse_registrations(text, file="csrc/bad.cpp")
    assert str(err.value) == message


def test_a_broken_def_loses_only_itself() -> None:
    f = parse_registrations('TORCH_LIBRARY(_C, m) {\n  m.def(schema_var);\n  m.def("b() -> ()");\n'
                            '  m.def("c(Tensor x) -> ()";\n  m.def("d() -> ()");\n}\n', file="csrc/bad.cpp")
    assert [d.name for d in f.defs] == ["b", "d"]
    assert f.problems == ("csrc/bad.cpp:2: m.def: the schema is not a string literal; this m.def() was skipped",
                          "csrc/bad.cpp:4: unclosed '(': the statement ends at line 4 before its ')'; this m.def() was "
                          "skipped")


def test_broken_file_is_skipped_and_the_rest_extracted(tmp_path: Path) -> None:
    (tmp_path / "csrc" / "moe").mkdir(parents=True)
    (tmp_path / "csrc" / "torch_bindings.cpp").write_text(OLD_LAYOUT)
    (tmp_path / "csrc" / "moe" / "torch_bindings.cpp").write_text(NEW_LAYOUT)
    (tmp_path / "csrc" / "broken.cu").write_text('TORCH_LIBRARY(_C, m) {\n  m.def("a(Tensor x) -> ()";\n}\n')
    regs = scan_registrations(tmp_path, BuildTable((BuildRule("csrc/", "_C", "gpu"), BuildRule("csrc/moe/", "_moe_C", "gpu")), ("gpu",)))
    assert [s.reason for s in regs.skipped] == [
        "csrc/broken.cu:2: unclosed '(': the statement ends at line 2 before its ')'; this m.def() was skipped"]
    assert [f.path for f in regs.files] == ["csrc/torch_bindings.cpp", "csrc/moe/torch_bindings.cpp"]
    assert len(regs.defs) == 10


def test_platforms_from_guards() -> None:
    assert platforms_for((), "gpu") == ["cuda", "rocm"]
    assert platforms_for(("!defined(USE_ROCM)",), "gpu") == ["cuda"]
    assert platforms_for(("defined(USE_ROCM)", "defined(X) || CUDA_VERSION >= 12"), "gpu") == ["rocm"]
    assert platforms_for(("!(defined(USE_ROCM) && defined(Y))",), "gpu") == ["cuda", "rocm"]
    assert platforms_for(("defined(__AVX512F__)",), "cpu") == ["cpu"]


def test_schema_params_from_torch_and_source_text() -> None:
    s = parse_op_schema('f(Tensor! out, Tensor !ids, Tensor!? lse, Tensor(a!) y, SymInt n, int[]? dims=None, '
                        'ScalarType? dt=None, *, float eps=1e-6, str mode="x") -> (Tensor(a!), int)', file="c", line=3)
    assert [(a.name, a.type_text, a.kind, a.optional, a.mutable, a.alias, a.default, a.keyword_only) for a in s.args] == [
        ("out", "Tensor!", "tensor", False, True, None, None, False),
        ("ids", "Tensor !", "tensor", False, True, None, None, False),
        ("lse", "Tensor!?", "optional_tensor", True, True, None, None, False),
        ("y", "Tensor(a!)", "tensor", False, True, "a", None, False),
        ("n", "SymInt", "int", False, False, None, None, False),
        ("dims", "int[]?", "int_list", True, False, None, "None", False),
        ("dt", "ScalarType?", "scalar_type", True, False, None, "None", False),
        ("eps", "float", "float", False, False, None, "1e-6", True),
        ("mode", "str", "str", False, False, None, '"x"', True),
    ]
    assert [(r.type_text, r.kind, r.alias) for r in s.returns] == [("Tensor(a!)", "tensor", "a"), ("int", "int", None)]
    assert canonical_schema("g(Tensor! x) -> ()") == "g(Tensor($0! -> ) x) -> ()"
    assert type_kind("Tensor?[]") == ("tensor_list", False)
    with pytest.raises(SourceParseError) as err:
        parse_op_schema("h(Tensor x, ) -> ()", file="csrc/t.cpp", line=7)
    assert str(err.value).startswith("csrc/t.cpp:7: torch cannot parse the schema of 'h': ")


def test_repeated_schema_names_take_the_wrapper_name() -> None:
    s = parse_op_schema("cv(Tensor! a, Tensor q, Tensor q, int n) -> ()", file="c", line=1)
    (w,) = parse_wrappers("import torch\ndef cv(q, kv, n):\n    torch.ops._C.cv(a, q, kv, n)\n")
    names, renamed = unique_param_names(s, w, "_C")
    assert names == ["a", "q", "kv", "n"]
    assert [(r.position, r.schema_name, r.name) for r in renamed] == [(2, "q", "kv")]
    assert unique_param_names(s, None, "_C")[0] == ["a", "q", "q_2", "n"]


def test_schema_differences_lines() -> None:
    a = canonical_schema("f(Tensor! out, Tensor w, float e) -> ()")
    b = canonical_schema("f(Tensor! out, Tensor? w, float e, int k=0) -> ()")
    assert schema_differences(a, b) == ["- arg Tensor w", "+ arg Tensor? w", "+ arg int k=0"]


WRAPPERS = '''
import torch

def rms_norm(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    torch.ops._C.rms_norm(out, input, weight, epsilon)

if hasattr(torch.ops._C, "x"):
    def scaled(input: torch.Tensor, scale: torch.Tensor | None = None, *, pad: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        """Quantize."""
        output = torch.empty_like(input)
        if scale is None:
            scale = torch.empty(1, device=input.device, dtype=torch.float32)
            torch.ops._C.dynamic(output, input, scale)
        else:
            torch.ops._C.static(output, input, scale)
        return output, scale
'''


def test_wrappers_parsed() -> None:
    ws = {w.name: w for w in parse_wrappers(WRAPPERS)}
    assert ws["rms_norm"].line == 4
    assert [(p.name, p.annotation, p.default, p.kind) for p in ws["rms_norm"].params] == [
        ("out", "torch.Tensor", None, "positional"), ("input", "torch.Tensor", None, "positional"),
        ("weight", "torch.Tensor", None, "positional"), ("epsilon", "float", None, "positional")]
    s = ws["scaled"]
    assert (s.line, s.docstring, s.returns_annotation) == (8, "Quantize.", "tuple[torch.Tensor, torch.Tensor]")
    assert s.ops == (("_C", "dynamic"), ("_C", "static"))
    assert [(a.target, a.call) for a in s.allocates] == [
        ("output", "torch.empty_like(input)"), ("scale", "torch.empty(1, device=input.device, dtype=torch.float32)")]
    assert s.returns == ("output, scale",)
    assert [(p.name, p.kind, p.default) for p in s.params][2] == ("pad", "keyword_only", "0")
    with pytest.raises(SourceParseError) as err:
        parse_wrappers("def f(:\n  pass\n")
    assert str(err.value) == "vllm/_custom_ops.py:2: Python syntax error: parser error: error at 2:2: expected one of ), *, **, NAME"


TEST_MODULE = '''
import pytest
import torch
from vllm import _custom_ops as ops

DTYPES = [torch.half, torch.bfloat16, torch.float]
SIZES = [2 ** i for i in range(3, 6)] + [768 + 1]
PAIRS = [(n, d) for n in (1, 4) for d in (64, 128) if n * d < 500]
DEVICES = [f"cuda:{i}" for i in range(torch.cuda.device_count())]
SCALE = 1 / (2 * 3)

def helper(x):
    return torch.ops._C.rms_norm(x)

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,d", PAIRS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("flag", [pytest.param(True, marks=pytest.mark.skip), False])
def test_it(dtype, n, d, size, device, flag):
    helper(size)
    ops.scaled_fp8_quant(size)
'''


def test_grid_static_evaluation_exactly() -> None:
    (g,) = parse_test_module(TEST_MODULE, file="tests/kernels/t.py")
    assert (g.key, g.line) == ("tests/kernels/t.py::test_it", 20)
    assert [(a.names, a.values, a.reason) for a in g.axes] == [
        (("flag",), ((True,), (False,)), ""),
        (("device",), None, "`DEVICES`: call of `torch.cuda.device_count`"),
        (("size",), ((8,), (16,), (32,), (769,)), ""),
        (("n", "d"), ((1, 64), (1, 128), (4, 64)), ""),
        (("dtype",), (("float16",), ("bfloat16",), ("float32",)), ""),
    ]
    assert g.ops == frozenset({("_C", "rms_norm")})  # through the module-level helper
    assert g.wrappers == frozenset({"scaled_fp8_quant"})


def test_static_evaluator_refuses_what_it_cannot_know() -> None:
    env = module_env(cst.parse_module("A = 3\nB = A * 2 + 1\nC = os.environ['X']\nD = sorted({5, 1})\n"))
    assert (env["A"], env["B"], env["D"]) == (3, 7, [1, 5])
    with pytest.raises(Unevaluable, match="`C`: `os.environ` is not a constant"):
        Evaluator(env).eval(cst.parse_expression("C + 1"))


def test_subsample_is_small_first_and_covers_labels() -> None:
    pts = [{"n": n, "dtype": dt, "flag": f} for n in (4096, 7, 83) for dt in ("float16", "float32") for f in (False, True)]
    got = subsample(pts, limit=4)
    assert got == [{"n": 7, "dtype": "float16", "flag": False}, {"n": 7, "dtype": "float16", "flag": True},
                   {"n": 7, "dtype": "float32", "flag": False}, {"n": 83, "dtype": "float16", "flag": False}]
    assert subsample(pts) == subsample(list(pts))  # deterministic


def test_location_prints_file_line() -> None:
    assert str(Location("csrc/a.cpp", 3)) == "csrc/a.cpp:3"


GRID_MODULE = '''
import pytest
import torch

@pytest.mark.parametrize("kv_cache_dtype", ["auto", "fp8", "nvfp4"])
@pytest.mark.parametrize("num_tokens", [42, 7])
@pytest.mark.parametrize("seed", [0])
def test_cache(kv_cache_dtype, num_tokens, seed):
    torch.ops._C_cache_ops.reshape_and_cache_flash()
'''


def _entry(**kw: object) -> CuratedEntry:
    base = dict(op="reshape_and_cache_flash", schema="reshape_and_cache_flash(Tensor x) -> ()", module="m",
                function="f", inputs="g", category="kv-cache", semantics="deterministic", tolerance={}, cost=None,
                description="", test="tests/kernels/t.py::test_cache",
                grid_map={"num_tokens": "num_tokens", "kv_cache_dtype": "kv_cache_dtype"}, fixed={"block": 16},
                correctness=({"num_tokens": 3, "kv_cache_dtype": "auto"}, {"num_tokens": 3, "kv_cache_dtype": "fp8"}),
                performance=({"num_tokens": 4096, "kv_cache_dtype": "auto"},), file="vllm_curated_x.yaml", line=2)
    base.update(kw)
    return CuratedEntry(**base)  # type: ignore[arg-type]


def test_workloads_from_the_grid_and_the_fallback() -> None:
    grids = parse_test_module(GRID_MODULE, file="tests/kernels/t.py")
    scan = TestScan(grids, (), {g.key: g for g in grids})
    at_013 = plan_workloads(_entry(), scan, version="0.13.0")
    assert at_013.source is GridSource.TEST_GRID and at_013.reason == ""
    assert [(w["id"], w["params"]) for w in at_013.workloads if w["purpose"] == "correctness"] == [
        ("c0", {"block": 16, "num_tokens": 7, "kv_cache_dtype": "auto"}),
        ("c1", {"block": 16, "num_tokens": 7, "kv_cache_dtype": "fp8"}),
        ("c2", {"block": 16, "num_tokens": 7, "kv_cache_dtype": "nvfp4"}),
        ("c3", {"block": 16, "num_tokens": 42, "kv_cache_dtype": "auto"}),
        ("c4", {"block": 16, "num_tokens": 42, "kv_cache_dtype": "fp8"}),
        ("c5", {"block": 16, "num_tokens": 42, "kv_cache_dtype": "nvfp4"}),
    ]
    assert {w["origin"] for w in at_013.workloads} == {"vllm-test:tests/kernels/t.py::test_cache", "handwritten:model-sizes"}
    later = plan_workloads(_entry(), scan, version="0.33.0")  # a mode the entry never uses is left out
    assert [w["params"]["kv_cache_dtype"] for w in later.workloads if w["purpose"] == "correctness"] == [
        "auto", "fp8", "auto", "fp8"]
    assert later.reason == "grid values the entry's cases never use were left out: kv_cache_dtype=nvfp4"
    gone = plan_workloads(_entry(grid_map={"num_tokens": "num_tokens", "head_size": "head_size"}), scan)
    assert (gone.source, gone.reason) == (GridSource.FALLBACK, "test tests/kernels/t.py::test_cache has no parameter 'head_size' at this revision")
    assert [(w["origin"], w["params"]) for w in gone.workloads][:1] == [
        ("vllm-test:tests/kernels/t.py::test_cache@v0.13.0", {"block": 16, "num_tokens": 3, "kv_cache_dtype": "auto"})]
