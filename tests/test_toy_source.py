"""Adding a source is one package plus its registry entry: a toy source is extracted, built, prompted and
evaluated with no other module touched (tests/toy_source/)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import toy_source

import kernelgenbench
from kernelgenbench import sources
from kernelgenbench.dataset.build import build_dataset
from kernelgenbench.dataset.record import Task, canonical_json
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.prompt import build_prompt
from kernelgenbench.evaluator.static_checks import check_source
from kernelgenbench.evaluator.status import Status

DOUBLE = '''import torch
import triton
import triton.language as tl


@triton.jit
def _double(x_ptr, out_ptr, n, FACTOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * FACTOR, mask=mask)


def double(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    _double[(triton.cdiv(x.numel(), 256),)](x, out, x.numel(), FACTOR=FACTOR_VALUE, BLOCK=256)
    return out
'''


@pytest.fixture
def toy() -> Iterator[list[dict]]:
    with sources.registered(toy_source.SOURCE) as src:
        yield sources.resolve(src.extractor)()


def test_records_are_valid_only_while_the_source_is_registered(toy: list[dict]) -> None:
    assert [r["id"] for r in toy] == ["toy/double", "toy/square", "toy/negate"]
    for r in toy:
        assert record_errors(r) == [], r["id"]
        assert canonical_json(Task.from_dict(r).to_dict()) == canonical_json(r)
    bad = {**toy[0], "details": {"toy": {"registry_line": 0}}}  # the toy schema part is enforced
    assert record_errors(bad) == ["at details/toy/registry_line: 0 is less than the minimum of 1"]
    sources.unregister("toy")
    try:
        assert record_errors(toy[0])[0] == "at source: 'toy' is not one of ['aten', 'vllm', 'cublas']"
    finally:
        sources.register(toy_source.SOURCE)


def test_a_second_source_of_the_same_name_is_refused(toy: list[dict]) -> None:
    with pytest.raises(KgbError, match="source 'toy' is already registered"):
        sources.register(toy_source.SOURCE)


def test_build_lists_the_toy_source_in_the_manifest_and_card(toy: list[dict], tmp_path: Path) -> None:
    (tmp_path / "toy.jsonl").write_text("".join(canonical_json(r) + "\n" for r in toy))
    result = build_dataset([tmp_path / "toy.jsonl"], tmp_path / "ds")
    assert result.published == 3
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert sorted(manifest["tasks"]) == ["toy/double", "toy/negate", "toy/square"]
    assert [u["upstream"] for u in manifest["upstreams"]] == ["toy"]
    card = (tmp_path / "ds" / "README.md").read_text()
    assert "0 ATen operators (0 tasks: every overload its own row)" in card and "and 3 toy ops." in card


def test_prompt_takes_the_sources_convention_and_forbidden_lines(toy: list[dict]) -> None:
    prompt = build_prompt(Task.from_dict(toy[0]))
    assert prompt.calling_convention == "Define `double(x)` taking one tensor and returning a new one, as `toy.double.default` does."
    assert prompt.forbidden[0] == "Calling torch compute ops on x (allocation and views are allowed)."
    assert "def double(x):\n    return x * 2" in prompt.text


def test_the_static_check_refuses_the_sources_own_library(toy: list[dict]) -> None:
    code = "import toy_lib\n\ndef double(x):\n    return toy_lib.double(x)\n"
    verdict = check_source(code)
    assert verdict.status is Status.FORBIDDEN_API and "toy_lib" in verdict.evidence
    sources.unregister("toy")
    try:
        assert check_source(code).status is not Status.FORBIDDEN_API
    finally:
        sources.register(toy_source.SOURCE)


@pytest.mark.parametrize(("factor", "status"), [(2, Status.PASSED), (3, Status.INCORRECT_NUMERICS)])
def test_evaluate_a_triton_candidate(toy: list[dict], factor: int, status: Status) -> None:
    code = DOUBLE.replace("FACTOR_VALUE", str(factor))
    [result] = kernelgenbench.evaluate({"toy/double": code}, tasks=[toy[0]], device="cpu", rounds=1, seed=0)
    assert result.source == "toy"
    assert result.status is status, result.evidence
