"""The curated core entries against the real vLLM 0.13.0 sources: each schema text is the registered one,
each test named exists with the mapped parameters, and each generator (and reference) accepts every point of
the mapped grid (sizes collapsed to the smallest so that the run stays short on CPU)."""

from __future__ import annotations

import itertools
import json
import math
from importlib import resources
from pathlib import Path

import pytest
import yaml
from vllm_sources import unpack

from kernelgenbench.reference_impls import vllm_misc, vllm_moe, vllm_norm, vllm_quant_act, vllm_rope

test_grids = pytest.importorskip("kernelgenbench.extractors.vllm.test_grids")
registrations = pytest.importorskip("kernelgenbench.extractors.vllm.registrations")
schemas = pytest.importorskip("kernelgenbench.extractors.vllm.schemas")

_MODULES = {m.__name__: m for m in (vllm_norm, vllm_quant_act, vllm_rope, vllm_moe, vllm_misc)}
_BINDINGS = ("csrc/torch_bindings.cpp", "csrc/moe/torch_bindings.cpp")
# Generator params that only size tensors: collapsed to their smallest grid value (pairs: product <= 2**11).
_SIZES = {"num_tokens", "hidden_size", "seq_len", "batch_size", "vocab_size", "num_seqs", "max_tokens_per_batch",
          "shape"}


@pytest.fixture(scope="module")
def vllm_013(tmp_path_factory) -> Path:
    """A v0.13.0 tree with csrc/**/torch_bindings.cpp and tests/ taken from the cached source distribution."""
    return unpack("0.13.0", tmp_path_factory.mktemp("vllm-0.13.0"),
                  lambda rel: rel.startswith("tests/") and rel.endswith(".py") or rel in _BINDINGS)


def _entries() -> dict:
    text = resources.files("kernelgenbench.data").joinpath("vllm_curated_core.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["ops"]


def test_schemas_are_the_registered_ones(vllm_013):
    defs = {}
    for rel in _BINDINGS:
        parsed = registrations.parse_registrations((vllm_013 / rel).read_text(), file=rel,
                                                   extension="_moe_C" if "moe" in rel else "_C")
        defs.update({d.name: d for d in parsed.defs if d.schema})
    for name, e in _entries().items():
        assert name in defs, f"{name} is not registered in 0.13.0"
        assert schemas.canonical_schema(e["schema"]) == schemas.canonical_schema(defs[name].schema), name


def _grid(root: Path, key: str):
    file, test = key.split("::", 1)
    grids = test_grids.parse_test_module((root / file).read_text(), file=file)
    found = [g for g in grids if g.test == test]
    assert found, f"{key}: no such test in 0.13.0"
    return found[0]


def _size(v) -> float:
    return math.prod(v) if isinstance(v, list) else (v if isinstance(v, int | float) else 0)


def _points(grid, grid_map: dict) -> list[dict]:
    axes = []
    for axis in grid.axes:
        idx = [i for i, n in enumerate(axis.names) if n in grid_map]
        if not idx:
            continue
        assert axis.values is not None, f"{grid.key}: mapped axis {axis.names} not evaluable: {axis.reason}"
        names = [grid_map[axis.names[i]] for i in idx]
        cases, seen = [], set()
        for c in axis.values:
            case = tuple(c[i] for i in idx)
            if json.dumps(case) not in seen:
                seen.add(json.dumps(case))
                cases.append(case)
        if all(n in _SIZES for n in names):
            small = [c for c in cases if math.prod(_size(v) or 1 for v in c) <= 2**11]
            cases = small or [min(cases, key=lambda c: math.prod(_size(v) or 1 for v in c))]
            if len(names) == 1:
                cases = [min(cases, key=lambda c: _size(c[0]))]
        axes.append([dict(zip(names, c, strict=True)) for c in cases])
    return [dict(kv for d in combo for kv in d.items()) for combo in itertools.product(*axes)]


@pytest.mark.parametrize("name", sorted(_entries()))
def test_every_grid_point_is_valid_generator_input(vllm_013, name):
    e = _entries()[name]
    grid = _grid(vllm_013, e["test"])
    axis_names = {n for a in grid.axes for n in a.names}
    assert set(e["grid_map"]) <= axis_names, f"{name}: grid_map names not in {e['test']}: {axis_names}"
    mod = _MODULES[e["module"]]
    fn, gen = getattr(mod, e["function"]), getattr(mod, e["inputs"])
    points = _points(grid, e["grid_map"])
    assert points
    for p in points:
        args = gen({**p, **e.get("fixed", {})}, seed=1, device="cpu")
        fn(**args)
