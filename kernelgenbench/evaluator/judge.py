"""The verdict on one call of a candidate, from what its worker reported and the tensors it sent back.

Pure: the evaluator's process runs this on CPU copies; the worker's evidence is data, and every check
that can be made on the tensors themselves (types, shapes, values, input writes) is made here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks import REGISTRY, judge_report
from kernelgenbench.evaluator.checks.no_launch import CHECK as NO_LAUNCH
from kernelgenbench.evaluator.compare import (
    active_rule,
    compare_declared,
    compare_output,
    flatten,
    rule_values,
    unchanged,
)
from kernelgenbench.evaluator.cost import flatten_tensors
from kernelgenbench.evaluator.status import PASS, Status, Verdict
from kernelgenbench.evaluator.workless import needs_work
from kernelgenbench.sandbox.protocol import CallReport, Leaf


def storage_aliases(leaves: list[tuple[str, Any]], args: Mapping[str, Any]) -> dict[str, str | None]:
    """For each output leaf, the parameter whose storage it shares (None when fresh)."""
    storages: dict[int, str] = {}
    for name, v in args.items():
        for t in flatten_tensors(v):
            if t.numel():
                storages.setdefault(t.untyped_storage().data_ptr(), name)
    return {where: storages.get(v.untyped_storage().data_ptr()) if isinstance(v, torch.Tensor) and v.numel() else None
            for where, v in leaves}


def leaf_verdict(where: str, ref: Any, meta: Leaf, device_type: str) -> Verdict:
    """One output leaf by what the worker saw of it (never by a type's name): a plain strided tensor with data
    on the inputs' device type (or the reference output's) where the reference returns a tensor."""
    if not isinstance(ref, torch.Tensor):
        return PASS  # a scalar output is judged by its value
    if not meta.plain:
        kind = "a torch.Tensor subclass" if meta.tensor_subclass else "not a tensor"
        return Verdict(Status.INCORRECT_TYPE, f"{where}: expected a plain torch.Tensor, got {meta.type} ({kind})")
    layout, expected = meta.layout, str(ref.layout)
    if layout != expected or meta.nested:
        return Verdict(Status.INCORRECT_TYPE, f"{where}: layout {layout}{' (nested)' if meta.nested else ''}, "
                       f"expected {expected}")
    dev = meta.device
    dev_type = dev.split(":", 1)[0]
    if dev_type == "meta":
        return Verdict(Status.INCORRECT_DEVICE, f"{where}: on the meta device (a tensor without data), expected {device_type}")
    if dev_type not in (device_type, ref.device.type):
        return Verdict(Status.INCORRECT_DEVICE, f"{where}: on device {dev}, expected {device_type}")
    if not meta.storage:
        return Verdict(Status.INCORRECT_TYPE, f"{where}: a tensor without readable storage (its data was never "
                       "allocated or cannot be read)")
    return PASS


def structure(value: Any) -> str:
    """The nesting of a return value as the worker reports it: '*' for a leaf, '[*,[*,*]]' for lists and tuples."""
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(structure(v) for v in value) + "]"
    return "*"


def _judge_leaf_metas(ref_return: Any, ref_leaves: list[tuple[str, Any]], report: CallReport,
                      device_type: str) -> Verdict:
    """Count, nesting and kind of every output leaf, before any value is looked at."""
    metas = report.leaves
    if len(metas) != len(ref_leaves):
        got = "None" if report.returns_none else f"{len(metas)} value(s)"
        return Verdict(Status.INCORRECT_TYPE, f"returned {got}, expected {len(ref_leaves)} value(s)")
    got_structure, expected = report.structure, structure(ref_return)
    if got_structure != expected:
        return Verdict(Status.INCORRECT_TYPE, f"returned values nested as {got_structure[:200]}, expected {expected} "
                       "('*' a value, [...] a list or tuple)")
    for (where, ref), meta in zip(ref_leaves, metas, strict=True):
        v = leaf_verdict(where, ref, meta, device_type)
        if not v.passed:
            return v
    return PASS


def judge_evidence(task: Task, report: CallReport, *, workless: bool = False) -> Verdict:
    """Checks on the worker's evidence alone, in registry order (tampering, exceptions, torch compute, launches).

    `workless`: the reference's result on this input takes no computing (evaluator/workless.py), so the call
    needs no Triton launch.
    """
    return judge_report(REGISTRY, task, report, skip=frozenset({NO_LAUNCH.name}) if workless else frozenset())


def judge_call(task: Task, report: CallReport, cand: Mapping[str, Any] | None, *, ref_return: Any,
               ref_args: Mapping[str, Any], pristine: Mapping[str, Any], device: str,
               written: Mapping[str, bool] | None = None) -> tuple[Verdict, dict[str, float]]:
    """The verdict on one round: evidence first, then outputs, then mutable and undeclared writes.

    `written`: for inputs the worker drew itself, whether each argument's fingerprint changed in the call;
    an argument that did not come back is then judged by it (the worker sends back only changed ones).
    """
    stats: dict[str, float] = {}
    v = judge_evidence(task, report, workless=not needs_work(task, ref_return, ref_args, pristine))
    if not v.passed:
        return v, stats
    if report.unreadable:
        return Verdict(Status.INCORRECT_TYPE, f"the worker could not read what the call returned: {report.unreadable}"), stats
    ref_leaves = flatten(ref_return, "return") if ref_return is not None else []
    metas = report.leaves
    # The record's declared relaxations (order left unspecified upstream) replace the elementwise comparison.
    values = rule_values(task, ref_args, ref_leaves) if task.compare else {}
    if ref_leaves:
        v = _judge_leaf_metas(ref_return, ref_leaves, report, torch.device(device).type)
        if not v.passed:
            return v, stats
    if not isinstance(cand, Mapping):
        why = report.transfer_error or "nothing came back"
        return Verdict(Status.INCORRECT_TYPE, f"outputs could not be read back as plain tensors: {why}"), stats
    v = _judge_returns(task, cand, ref_leaves, ref_args, metas, values, pristine, stats)
    if not v.passed:
        return v, stats
    return _judge_args(task, cand, ref_args, pristine, values, written, stats), stats


def _compare_into(stats: dict[str, float], task: Task, where: str, ref: Any, out: Any, rule: Any,
                  values: Mapping[str, Any], pristine: Mapping[str, Any], semantics: str) -> Verdict:
    """One output or written argument compared (by the record's rule where it declares one); `stats` keeps
    each figure's maximum over everything compared."""
    verdict, s = (compare_declared(where, ref, out, rule, values=values, inputs=pristine, tolerance=task.tolerance)
                  if rule else compare_output(where, ref, out, semantics=semantics, tolerance=task.tolerance,
                                              inputs=pristine))
    for k, x in s.items():
        stats[k] = max(stats.get(k, 0.0), x)
    return verdict


def _judge_returns(task: Task, cand: Mapping[str, Any], ref_leaves: list[tuple[str, Any]], ref_args: Mapping[str, Any],
                   metas: tuple[Leaf, ...], values: Mapping[str, Any], pristine: Mapping[str, Any],
                   stats: dict[str, float]) -> Verdict:
    """The returned values against the reference's: count, values, and (view ops) which input they alias."""
    if not ref_leaves:
        return PASS
    got = list(cand.get("returns") or []) if isinstance(cand.get("returns"), list) else []
    if len(got) != len(ref_leaves):
        return Verdict(Status.INCORRECT_TYPE, f"returned {len(got)} value(s), expected {len(ref_leaves)}")
    ref_alias = storage_aliases(ref_leaves, ref_args) if task.semantics == "view" else {}
    written = _written_returns(task, len(ref_leaves))
    for i, ((where, ref), out, meta) in enumerate(zip(ref_leaves, got, metas, strict=True)):
        rule = active_rule(task, where, values)
        verdict = _compare_into(stats, task, where, ref, out, rule, values, pristine, task.semantics)
        if not verdict.passed:
            return verdict
        if task.semantics == "view" and ref_alias.get(where) and meta.alias != ref_alias[where]:
            return Verdict(Status.INCORRECT_ALIASING,
                           f"{where}: must be a view of {ref_alias[where]!r}, but it shares storage with "
                           f"{meta.alias!r}")
        if written.get(i) and isinstance(ref, torch.Tensor) and ref.numel() and meta.alias != written[i]:
            return Verdict(Status.INCORRECT_ALIASING,
                           f"{where}: the schema returns the argument {written[i]!r} it writes ({task.returns[i].type}), "
                           f"but the call returned {'another tensor' if meta.alias is None else repr(meta.alias)}")
    return PASS


def _written_returns(task: Task, leaves: int) -> dict[int, str]:
    """Return position -> the mutable argument the schema says it is (`Tensor(a!)`: an in-place or out= op returns
    what it wrote; red team 21 returned another buffer from add_), where returns and output leaves line up."""
    if len(task.returns) != leaves:
        return {}
    by_alias = {p.alias: p.name for p in task.params if p.alias and p.mutable}
    return {i: by_alias[r.alias] for i, r in enumerate(task.returns)
            if r.alias and "!" in r.type and r.alias in by_alias}


def _judge_args(task: Task, cand: Mapping[str, Any], ref_args: Mapping[str, Any], pristine: Mapping[str, Any],
                values: Mapping[str, Any], written: Mapping[str, bool] | None, stats: dict[str, float]) -> Verdict:
    """Declared-mutable arguments against the reference's writes; every other argument left unchanged."""
    cand_args = cand.get("args") if isinstance(cand.get("args"), Mapping) else {}
    for p in task.params:
        if p.name not in pristine:
            continue
        after = cand_args.get(p.name)
        if p.mutable:
            verdict = _judge_written(task, p.name, ref_args[p.name], after, values, pristine, stats)
        elif p.name not in cand_args and written is not None and p.name in written:
            verdict = PASS
            if written[p.name]:
                verdict = Verdict(Status.UNDECLARED_MUTATION, f"argument {p.name}: its contents changed during the "
                                  "call (fingerprint), but the schema does not declare it mutable")
        else:
            verdict = _judge_unchanged(p.name, pristine[p.name], after)
        if not verdict.passed:
            return verdict
    return PASS


def _has_tensor(items: list[Any]) -> bool:
    return any(isinstance(t, torch.Tensor) for t in items)


def _list_length(name: str, expected: list[Any], after: Any, status: Status) -> Verdict:
    """A list argument must come back with as many members as it was handed: pairing a shorter list member
    by member would leave the missing ones unjudged. A list without tensors holds nothing to judge (the worker
    sends none back)."""
    if (isinstance(after, list) and len(after) == len(expected)) or not _has_tensor(expected):
        return PASS
    got = f"a list of {len(after)}" if isinstance(after, list) else f"{type(after).__name__}, not a list,"
    return Verdict(status, f"argument {name}: {got} came back where {len(expected)} member(s) were handed over "
                   "(each is judged)")


def _judge_written(task: Task, name: str, ref: Any, after: Any, values: Mapping[str, Any],
                   pristine: Mapping[str, Any], stats: dict[str, float]) -> Verdict:
    """A declared-mutable argument against the reference's write, a list member by member."""
    sem = "deterministic" if task.semantics == "view" else task.semantics
    if not isinstance(ref, list):
        rule = active_rule(task, name, values)
        return _compare_into(stats, task, f"argument {name}", ref, after, rule, values, pristine, sem)
    verdict = _list_length(name, ref, after, Status.INCORRECT_SHAPE)
    for i, (r, out) in enumerate(zip(ref, after, strict=True) if verdict.passed and _has_tensor(ref) else ()):
        verdict = _compare_into(stats, task, f"argument {name}[{i}]", r, out, None, values, pristine, sem)
        if not verdict.passed:
            break
    return verdict


def _judge_unchanged(name: str, before: Any, after: Any) -> Verdict:
    """An argument the schema does not declare mutable, bit-identical after the call (a list member by member)."""
    if not isinstance(before, list):
        return unchanged(f"argument {name}", before, after)
    verdict = _list_length(name, before, after, Status.UNDECLARED_MUTATION)
    for b, a in zip(before, after, strict=True) if verdict.passed and _has_tensor(before) else ():
        verdict = unchanged(f"argument {name}", b, a)
        if not verdict.passed:
            break
    return verdict
