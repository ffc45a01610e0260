"""The curated attention/cache/SSM/Hadamard entries (vllm_curated_attention.yaml) against their modules
and the real vLLM 0.13.0 sources: schemas are the registered ones, every parameter an entry names is one
its generator reads, the references take the schema's arguments, each explicit correctness case runs
through generator and reference, and each generator accepts every label combination (dtype, cache dtype,
layout, flags) of the mapped grid. The cases the extractor draws from the grid run in
test_vllm_refs_attention_records.py, through the records themselves."""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import json
import time
from importlib import resources
from pathlib import Path

import pytest
import torch
import yaml
from vllm_sources import unpack

from kernelgenbench.reference_impls.inline import module_text as module_source

_FILE = "vllm_curated_attention.yaml"
_BINDINGS = ("csrc/torch_bindings.cpp",)
# Generator params that only size tensors: collapsed to their smallest grid value for the label sweep.
_SIZES = {"num_tokens", "num_mappings", "num_blocks", "max_seq_len", "batch_size", "num_seqs", "num_query_heads",
          "num_layers", "seqlen", "hidden_dim", "head_size", "block_size", "num_heads"}


def _entries() -> dict:
    text = resources.files("kernelgenbench.data").joinpath(_FILE).read_text(encoding="utf-8")
    return yaml.safe_load(text)["ops"]


def _module(e: dict):
    return importlib.import_module(e["module"])


def name_of(e: dict) -> str:
    return e["schema"].split("(", 1)[0]


def _run(e: dict, params: dict, seed: int = 0):
    mod = _module(e)
    args = getattr(mod, e["inputs"])(dict(params), seed=seed, device="cpu")
    names = [a.name for a in torch._C.parse_schema(e["schema"]).arguments]
    if name_of(e) == "convert_vertical_slash_indexes":
        names[5] = "kv_seqlens"  # the schema repeats q_seqlens; the generator names the key lengths
    assert set(args) == set(names), (name_of(e), sorted(args), names)
    fn = getattr(mod, e["function"])
    if name_of(e) == "convert_vertical_slash_indexes":  # positional call, in schema order
        assert list(args) == names
        return fn(*args.values()), args
    return fn(**args), args


def test_entries_are_complete_and_self_contained():
    entries = _entries()
    assert len(entries) == 16
    for name, e in entries.items():
        assert torch._C.parse_schema(e["schema"]).name == name
        src = module_source(_module(e).__name__)  # the text a record carries (shared helpers written in)
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                assert all(m.split(".")[0] in {"torch", "math", "__future__"} for m in mods), (name, mods)
        assert e["correctness"] and e["performance"] and e.get("cost"), name
        params = [k for case in e["correctness"] + e["performance"] for k in case]
        params += list(e.get("fixed", {})) + list(e.get("grid_map", {}).values())
        for p in set(params):  # generators read params by name; a misspelt one would be silently ignored
            assert f'"{p}"' in src, f"{name}: the generator never reads {p!r}"


@pytest.mark.parametrize("name", sorted(_entries()))
def test_reference_takes_the_schema_arguments(name):
    e = _entries()[name]
    names = [a.name for a in torch._C.parse_schema(e["schema"]).arguments]
    sig = inspect.signature(getattr(_module(e), e["function"])).parameters
    params = list(sig)
    if name == "convert_vertical_slash_indexes":
        names[5] = "kv_seqlens"  # the schema repeats q_seqlens; the kernel's sixth argument is kv_seqlens
    # Arguments later releases added (the entry's `revisions`) follow, with the default that keeps 0.13.0's meaning.
    assert params[: len(names)] == names
    assert all(sig[p].default is not inspect.Parameter.empty for p in params[len(names):]), params[len(names):]


@pytest.mark.parametrize("name", sorted(_entries()))
def test_explicit_correctness_cases_run_quickly(name):
    e = _entries()[name]
    for case in e["correctness"]:
        t0 = time.perf_counter()
        ret, args = _run(e, {**e.get("fixed", {}), **case})
        assert time.perf_counter() - t0 < 5.0, (name, case)  # < 1 s on a free core; this machine is shared
        for k, v in args.items():
            if isinstance(v, torch.Tensor) and v.is_floating_point() and k in ("out", "output", "dst", "x"):
                assert not torch.isnan(v).any(), (name, k)
        assert (ret is None) == (name != "hadacore_transform")


@pytest.mark.parametrize("name", sorted(_entries()))
def test_cost_expressions_evaluate(name):
    cost_mod = pytest.importorskip("kernelgenbench.evaluator.cost")
    e = _entries()[name]
    _, args = _run(e, {**e.get("fixed", {}), **e["correctness"][0]})
    cost = cost_mod.workload_cost(e["cost"], args, None)
    assert cost["bytes"] > 0 and cost["flops"] >= 0, (name, cost)
    total = sum(t.numel() * t.element_size() for t in cost_mod.flatten_tensors(list(args.values())))
    assert cost["bytes"] <= 2 * total, (name, cost, total)  # at most every argument read and written once


@pytest.fixture(scope="module")
def vllm_013(tmp_path_factory) -> Path:
    """A v0.13.0 tree (csrc/torch_bindings.cpp, csrc/cache_kernels' bindings, tests/) from the cached sdist."""
    return unpack("0.13.0", tmp_path_factory.mktemp("vllm-0.13.0"),
                  lambda rel: rel.startswith("tests/") and rel.endswith(".py") or rel in _BINDINGS)


def test_schemas_are_the_registered_ones(vllm_013):
    registrations = pytest.importorskip("kernelgenbench.extractors.vllm.registrations")
    schemas = pytest.importorskip("kernelgenbench.extractors.vllm.schemas")
    parsed = registrations.parse_registrations((vllm_013 / _BINDINGS[0]).read_text(), file=_BINDINGS[0])
    defs = {d.name: d for d in parsed.defs if d.schema}
    for name, e in _entries().items():
        assert name in defs, f"{name} is not registered in 0.13.0"
        assert schemas.canonical_schema(e["schema"]) == schemas.canonical_schema(defs[name].schema), name


@pytest.fixture(scope="module")
def scan(vllm_013):
    test_grids = pytest.importorskip("kernelgenbench.extractors.vllm.test_grids")
    files = frozenset(e["test"].split("::")[0] for e in _entries().values() if e.get("test"))
    return test_grids.scan_tests(vllm_013, always=files)


def _label_points(grid, grid_map: dict, fixed: dict) -> list[dict]:
    axes = []
    for axis in grid.axes:
        idx = [i for i, n in enumerate(axis.names) if n in grid_map]
        if not idx:
            continue
        assert axis.values is not None, f"{grid.key}: mapped axis {axis.names} not evaluable: {axis.reason}"
        names = [grid_map[axis.names[i]] for i in idx]
        cases = list({json.dumps([c[i] for i in idx]): [c[i] for i in idx] for c in axis.values}.values())
        if all(n in _SIZES for n in names):
            cases = [min(cases, key=lambda c: json.dumps(c) if not all(isinstance(v, int) for v in c)
                         else sum(c))]
        axes.append([dict(zip(names, c, strict=True)) for c in cases])
    return [{**fixed, **{k: v for d in combo for k, v in d.items()}} for combo in itertools.product(*axes)]


@pytest.mark.parametrize("name", sorted(n for n, e in _entries().items() if e.get("test")))
def test_every_label_combination_of_the_grid_is_valid_input(scan, name):
    e = _entries()[name]
    grid = scan.by_key.get(e["test"]) or next(g for g in scan.grids if g.key == e["test"])
    assert set(e["grid_map"]) <= {n for a in grid.axes for n in a.names}
    points = _label_points(grid, e["grid_map"], e.get("fixed", {}))
    assert points
    for p in points:
        _run(e, p, seed=1)
