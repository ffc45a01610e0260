"""Assemble one task record (without workloads) from a parsed native function."""

from __future__ import annotations

from typing import Any

from kernelgenbench import __version__
from kernelgenbench.dataset.record import RECORD_VERSION, Benchmark, Provenance, WorkloadState, WorkloadStatus
from kernelgenbench.extractors.aten import policies, signature
from kernelgenbench.extractors.aten.categorize import category
from kernelgenbench.extractors.aten.parse import ParsedFunction, Relations
from kernelgenbench.extractors.aten.semantics import semantics
from kernelgenbench.extractors.aten.yaml_source import AtenSource
from kernelgenbench.reference_impls.aten import entry_point, reference_code


def task_id(qualified: str | None) -> str | None:
    """'aten/add.Tensor' for 'add.Tensor'; None stays None."""
    return None if qualified is None else f"aten/{qualified}"


# Dispatch keys that mean "a kernel for every backend" (or a decomposition into ops that have one).
_PORTABLE_KEYS = {"CompositeImplicitAutograd", "CompositeExplicitAutograd",
                  "CompositeExplicitAutogradNonFunctional", "CPU", "Meta"}


def platforms(dispatch: tuple[str, ...], curated: bool) -> list[str]:
    """'any' for curated tasks and ops with a portable kernel; else the one backend family they have."""
    if curated or not dispatch or set(dispatch) & _PORTABLE_KEYS:
        return ["any"]
    if any("CUDA" in k for k in dispatch):
        return ["cuda"]
    if any("XPU" in k for k in dispatch):
        return ["xpu"]
    if any("MPS" in k for k in dispatch):
        return ["mps"]
    return ["any"]


def _details(pf: ParsedFunction, relations: Relations, registered_mismatch: str | None, curated_name: str | None,
             doc_from: str | None) -> dict[str, Any]:
    """details.aten: torchgen's facts about the overload and its group."""
    f = pf.func
    return {
        "schema_kind": f.func.kind().name,
        "variants": sorted(v.name for v in f.variants),
        "functional": task_id(relations.functional),
        "inplace": task_id(relations.inplace),
        "out": task_id(relations.out),
        "mutable_variant": task_id(relations.mutable),
        "structured": bool(f.structured or f.structured_delegate is not None),
        "dispatch": list(pf.dispatch),
        "python_module": f.python_module,
        "registered": registered_mismatch is None,
        "registered_mismatch": registered_mismatch,
        "opinfo": [],
        "curated_name": curated_name,
        "description_from": doc_from,
    }


def base_record(
    pf: ParsedFunction,
    *,
    source: AtenSource,
    relations: Relations,
    registered_mismatch: str | None,
    curated_name: str | None,
    doc: tuple[str, str | None],
    group_tags: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The record of one overload with every field but its workloads (empty, status 'none').

    `group_tags` are the functional overload's tags: upstream often tags only that one ('pointwise' on
    abs, not on abs_), and an op's in-place and out= variants belong to its category.
    """
    f = pf.func
    schema_text = str(f.func)
    name, overload = pf.base_name, pf.overload
    tags = sorted(f.tags)
    cat = category(name, sorted(set(tags) | group_tags))
    params = signature.params(f.func)
    description, doc_from = doc
    curated = curated_name is not None
    record = {
        "record_version": RECORD_VERSION, "id": f"aten/{pf.qualified_name}", "source": "aten",
        "name": name, "overload": overload, "signature": schema_text, "params": params,
        "returns": signature.returns(f.func), "category": cat, "tags": tags, "description": description,
        "entry_point": entry_point(name, overload), "semantics": semantics(name, f.func, tags),
        "reference": reference_code(name, overload, schema_text), "inputs": None, "workloads": [],
        "workload_status": WorkloadStatus(WorkloadState.NONE, "").to_dict(),
        "tolerance": policies.tolerance(cat),
        "cost": policies.cost(name, cat, params, overload),
        "provenance": Provenance("pytorch", source.version, source.commit, source.upstream_file, pf.line or None,
                                 __version__).to_dict(),
        "platforms": platforms(pf.dispatch, curated),
        "benchmarks": [Benchmark.MS.value, Benchmark.MC.value] if curated else [],
        "details": {"aten": _details(pf, relations, registered_mismatch, curated_name, doc_from)},
    }
    rules = policies.compare_rules(name, params, len(record["returns"]))
    if rules:
        record["compare"] = rules
    return record
