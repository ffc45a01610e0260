"""The ATen extraction: native_functions.yaml -> one validated task record per overload."""

from __future__ import annotations

import functools
import gc
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.record import Purpose, WorkloadStatus
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.errors import KgbError
from kernelgenbench.extractors.aten import default_workloads, out_workloads, trace_workloads
from kernelgenbench.extractors.aten.data_files import curated_names
from kernelgenbench.extractors.aten.docstrings import docstring
from kernelgenbench.extractors.aten.parse import (
    ParsedFunction,
    Relations,
    SkippedEntry,
    group_relations,
    parse_native_functions,
)
from kernelgenbench.extractors.aten.records import base_record
from kernelgenbench.extractors.aten.registered import check, registered_schemas
from kernelgenbench.extractors.aten.yaml_source import AtenSource, locate

# progress(stage, total): returns a function to call once per finished item of that stage.
Progress = Callable[[str, int], Callable[[], None]]


@dataclass(frozen=True)
class ExtractResult:
    """The records written and everything that was not, with why."""

    source: AtenSource
    records: list[dict[str, Any]] = field(repr=False)
    entries: int
    skipped: tuple[SkippedEntry, ...]
    invalid: tuple[str, ...]
    registered_mismatches: tuple[str, ...]
    workload_states: Mapping[str, int]
    opinfo_failed: tuple[str, ...]
    unmatched_curated: tuple[str, ...]

    def summary(self) -> str:
        """One line: written, skipped and why."""
        states = ", ".join(f"{k} {v}" for k, v in sorted(self.workload_states.items()))
        parts = [f"wrote {len(self.records)} records from {self.entries} entries",
                 f"skipped {len(self.skipped)} malformed entries", f"{len(self.invalid)} invalid records",
                 f"{len(self.registered_mismatches)} schemas differ from the registered ones",
                 f"workloads: {states}"]
        if self.unmatched_curated:
            shown = ", ".join(self.unmatched_curated[:5]) + (", ..." if len(self.unmatched_curated) > 5 else "")
            parts.append(f"{len(self.unmatched_curated)} curated names have no overload ({shown})")
        if self.opinfo_failed:
            parts.append(f"{len(self.opinfo_failed)} OpInfos failed to trace")
        return "; ".join(parts)


def _noop(stage: str, total: int) -> Callable[[], None]:
    return lambda: None


def _status(workloads: list[dict[str, Any]], reasons: list[str]) -> dict[str, str]:
    purposes = {w["purpose"] for w in workloads}
    missing = [p for p in (Purpose.CORRECTNESS, Purpose.PERFORMANCE) if p not in purposes]
    reason = "; ".join(dict.fromkeys(reasons)) or f"no {' or '.join(missing)} workload"
    return WorkloadStatus.of(purposes, reason).to_dict()


class _Workloads:
    """Builds each task's workloads: OpInfo samples, adopted by out= tasks, plus curated defaults."""

    def __init__(self, traced: Mapping[str, list[Any]], cap: int) -> None:
        self.traced, self.cap = traced, cap

    def _with_outs(self, functional: str | None, rec: dict[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
        out_params = [p["name"] for p in rec["params"] if p["direction"] == "out"]
        if not out_params:
            return dict(args)
        if functional is None:
            raise out_workloads.ShapeUnknown("no functional overload to shape the out= tensors")
        names = {p["name"] for p in rec["params"]}
        kept = {k: v for k, v in args.items() if k in names}
        return {**kept, **out_workloads.out_specs(functional, args, out_params)}

    def _traced(self, rec: dict[str, Any], functional: str | None, reasons: list[str]) -> list[dict[str, Any]]:
        """Performance workloads from the model trace: the overload's own calls, else (an out= task) its
        functional overload's, with the out= tensors shaped from them."""
        is_out = any(p["direction"] == "out" for p in rec["params"])
        found = trace_workloads.trace_workloads(rec)
        if not found and is_out and functional is not None:
            found = trace_workloads.trace_workloads(rec, source=functional)
        if not is_out:
            return found
        shaped = []
        for w in found:
            try:
                shaped.append({**w, "args": self._with_outs(functional, rec, w["args"])})
            except out_workloads.ShapeUnknown as exc:
                reasons.append(f"traced workload: {exc}")
        return shaped

    def build(self, rec: dict[str, Any], functional: str | None, curated: bool,
              opinfo: bool) -> tuple[list[dict[str, Any]], list[str], list[str]]:
        q = rec["id"].removeprefix("aten/")
        is_out = any(p["direction"] == "out" for p in rec["params"])
        workloads: list[dict[str, Any]] = []
        origins: list[str] = []
        reasons: list[str] = []
        samples = list(self.traced.get(q, []))
        if is_out and functional is not None and len(samples) < self.cap:
            for s in self.traced.get(functional, []):
                try:
                    samples.append(type(s)(q, s.origin, self._with_outs(functional, rec, s.args)))
                except out_workloads.ShapeUnknown:
                    continue
        for s in samples[: self.cap]:
            workloads.append({"id": f"opinfo-{len(workloads)}", "purpose": "correctness", "origin": s.origin,
                              "args": s.args})
            origins.append(s.origin)
        if not samples:
            reasons.append("OpInfo tracing was off" if not opinfo else "no OpInfo sample traces to this overload")
        if not curated:
            reasons.append("performance workloads are built for the curated set only")
            return workloads, origins, reasons
        traced = self._traced(rec, functional, reasons)
        workloads.extend(traced)
        # The default performance workload stands in only where the trace has nothing for the task.
        scales = ([] if traced else ["performance"]) + ([] if samples else ["correctness"])
        for scale in scales:
            try:
                args = default_workloads.template_args(rec["name"], rec["overload"], rec["category"],
                                                       rec["params"], scale)
                args = self._with_outs(functional, rec, args)
            except (out_workloads.ShapeUnknown, KgbError) as exc:
                reasons.append(f"default {scale} workload: {exc}")
                continue
            workloads.append({"id": f"default-{scale}", "purpose": scale, "origin": f"default:{rec['category']}",
                              "args": args, "description": default_workloads.describe(args)})
        return workloads, origins, reasons


def _record(pf: ParsedFunction, src: AtenSource, relations: Mapping[str, Relations], mismatch: str | None,
            curated_name: str | None, doc: tuple[str, str | None], tags_of: Mapping[str, frozenset[str]],
            builder: _Workloads, opinfo: bool) -> dict[str, Any]:
    q = pf.qualified_name
    rec = base_record(pf, source=src, relations=relations[q], registered_mismatch=mismatch,
                      curated_name=curated_name, doc=doc,
                      group_tags=tags_of.get(relations[q].functional or "", frozenset()))
    # An out= task's tensors are shaped by the overload that returns fresh outputs: the functional
    # one, or the mutable one where the group has no functional overload (rrelu_with_noise).
    shaper = relations[q].functional or relations[q].mutable
    workloads, origins, reasons = builder.build(rec, shaper, curated_name is not None, opinfo)
    rec["workloads"] = workloads
    rec["workload_status"] = _status(workloads, reasons)
    rec["details"]["aten"]["opinfo"] = sorted(set(origins))
    return rec


def extract(
    source: Path | None = None,
    *,
    only_curated: bool = False,
    opinfo: bool = True,
    cap: int = 8,
    progress: Progress = _noop,
) -> ExtractResult:
    """Extract one record per native function overload of `source` (default: the installed torch)."""
    # The run holds ~10^6 long-lived objects (yaml nodes, torchgen models, records) and makes no cycles
    # worth collecting: generational GC passes over them were a third of the time of a run.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _extract(source, only_curated=only_curated, opinfo=opinfo, cap=cap, progress=progress)
    finally:
        if gc_was_enabled:
            gc.enable()


def _extract(source: Path | None, *, only_curated: bool, opinfo: bool, cap: int, progress: Progress) -> ExtractResult:
    src = locate(source)
    tick = progress("parse", 0)
    parsed = parse_native_functions(src.native_functions, src.tags, on_entry=tick)
    curated = set(curated_names())
    functions: list[ParsedFunction] = [pf for pf in parsed.functions if not only_curated or pf.base_name in curated]
    relations = group_relations(parsed.functions)
    registered = registered_schemas()
    wanted = {pf.qualified_name for pf in functions}
    traced: dict[str, list[Any]] = {}
    failed: list[str] = []
    if opinfo:
        from torch.testing._internal.common_methods_invocations import op_db

        from kernelgenbench.extractors.aten.opinfo_workloads import trace_op_db

        # out= tasks adopt their functional overload's samples, so those are traced too.
        need = wanted | {r for q in wanted for r in (relations[q].functional, relations[q].mutable) if r}
        step = progress("trace OpInfo", len(op_db))
        traced, failed = trace_op_db(need.__contains__, cap=cap, on_opinfo=lambda _: step())
    doc = functools.cache(docstring)
    tags_of = {pf.qualified_name: frozenset(pf.func.tags) for pf in parsed.functions}
    builder = _Workloads(traced, cap)
    records: list[dict[str, Any]] = []
    invalid: list[str] = []
    mismatches: list[str] = []
    states: Counter[str] = Counter()
    step = progress("build records", len(functions))
    for pf in functions:
        q = pf.qualified_name
        mismatch = check(q, str(pf.func.func), registered)
        if mismatch is not None:
            mismatches.append(f"{q}: {mismatch}")
        curated_name = pf.base_name if pf.base_name in curated else None
        root = pf.base_name[:-1] if pf.base_name.endswith("_") and not pf.base_name.endswith("__") else pf.base_name
        d = doc(root, pf.func.python_module)
        if not d[0] and root != pf.base_name:
            d = doc(pf.base_name, pf.func.python_module)
        try:
            rec = _record(pf, src, relations, mismatch, curated_name, d, tags_of, builder, opinfo)
        except (KgbError, ValueError, KeyError, TypeError, AssertionError) as exc:
            # One overload the extractor cannot model is reported and counted; the run goes on.
            invalid.append(f"aten/{q} ({src.native_functions}:{pf.line}): {type(exc).__name__}: {exc}")
            step()
            continue
        errors = record_errors(rec)
        if errors:
            invalid.append(f"aten/{q} ({src.native_functions}:{pf.line}): {errors[0]}")
        else:
            records.append(rec)
            states[rec["workload_status"]["state"]] += 1
        step()
    matched = {pf.base_name for pf in parsed.functions}
    return ExtractResult(
        source=src, records=records, entries=parsed.entries, skipped=parsed.skipped, invalid=tuple(invalid),
        registered_mismatches=tuple(mismatches), workload_states=dict(states), opinfo_failed=tuple(failed),
        unmatched_curated=tuple(sorted(curated - matched)),
    )
