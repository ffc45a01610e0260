"""A toy operator source: a few elementwise ops, registered in a test to show that adding a source is one
package plus its registry entry (its extractor, details schema, prompt texts and native baseline)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kernelgenbench.dataset.record import (
    Code,
    Param,
    Provenance,
    Purpose,
    Return,
    Task,
    Tolerance,
    Workload,
    WorkloadStatus,
)
from kernelgenbench.sources import Source

SOURCE = Source(
    name="toy", upstream="toy", title="Toy",
    schema="toy_source:toy.schema.json",
    extractor="toy_source:extract",
    calling_convention="Define `{entry}(x)` taking one tensor and returning a new one, as `toy.{op}` does.",
    forbidden=("Calling torch compute ops on x (allocation and views are allowed).",),
    forbidden_imports=(("toy_lib", "the toy library under test"),),
    native="toy_source:native",
    card_text="{tasks} toy ops",
    colour="#000000",
)

# name, formula (Python over x), description: the "upstream" the extractor reads.
OPS = (
    ("double", "x * 2", "Doubles every element."),
    ("square", "x * x", "Squares every element."),
    ("negate", "-x", "Negates every element."),
)


def _reference(name: str, formula: str) -> Code:
    return Code(module=f"toy_source.{name}", function=name,
                code=f"import torch\n\n\ndef {name}(x):\n    return {formula}\n")


def _workloads() -> tuple[Workload, ...]:
    spec = lambda shape: {"x": {"kind": "tensor", "shape": shape, "dtype": "float32",  # noqa: E731
                                "init": {"dist": "normal"}}}
    return (Workload("c0", Purpose.CORRECTNESS, "handwritten", args=spec([37]), spelled=frozenset({"args"})),
            Workload("p0", Purpose.PERFORMANCE, "handwritten", args=spec([4096]), spelled=frozenset({"args"})))


def task(line: int, name: str, formula: str, description: str) -> Task:
    """The typed record of one toy op."""
    workloads = _workloads()
    return Task(
        id=f"toy/{name}", source="toy", name=name, overload="", signature=f"{name}(Tensor x) -> Tensor",
        params=(Param("x", "Tensor", "tensor", False, False, None, False, spelled=frozenset()),),
        returns=(Return("", "Tensor", "tensor", None),), category="elementwise", tags=(),
        description=description, entry_point=name, semantics="deterministic",
        reference=_reference(name, formula), inputs=None, workloads=workloads,
        workload_status=WorkloadStatus.of({w.purpose for w in workloads}, ""),
        tolerance={"float32": Tolerance(1e-6, 1e-6, spelled=frozenset())}, cost=None,
        provenance=Provenance("toy", "1.0", None, "toy_source/__init__.py", line, "test"),
        platforms=("any",), benchmarks=("ms",), details={"toy": {"registry_line": line}}, spelled=frozenset(),
    )


def extract() -> list[dict[str, Any]]:
    """One record per toy op."""
    return [task(i, *op).to_dict() for i, op in enumerate(OPS, start=1)]


def native(task: Task) -> tuple[Callable[..., Any] | None, str]:
    """The toy ops have no library implementation beyond their reference."""
    return None, "the toy source has no native library"
