"""Aggregate candidate result rows: accuracy per source, tokens per solved operator, pass@k, statuses.

pass@k is the unbiased estimator of Chen et al. 2021: for a task with n candidates of which c passed,
1 - C(n-c, k) / C(n, k), averaged over the tasks that have at least k candidates. Every pass@k column
that covers fewer tasks than the first one says how many it covers (`pass_at_tasks`): averages over
different task sets are not comparable, and pass@k over one set of tasks never falls as k grows.
Candidates for tasks that are not in the dataset (`not_in_dataset`) are counted in the statuses only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from math import comb
from typing import Any

from kernelgenbench.evaluator.results import row_source

_K_LADDER = (1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task with n samples, c of them correct (Chen et al. 2021)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass(frozen=True)
class GroupSummary:
    """Figures for one group of candidates (all of them, or one model/method)."""

    label: str
    tasks: int
    candidates: int
    solved: int  # tasks with at least one passing candidate
    accuracy_by_source: dict[str, tuple[int, int]]  # source -> (tasks solved, tasks)
    pass_at: dict[int, float]
    pass_at_tasks: dict[int, int]  # k -> how many tasks (those with at least k candidates) pass@k averages
    tokens_total: int | None
    tokens_per_solved: float | None
    statuses: dict[str, int] = field(default_factory=dict)


def _group(rows: list[Mapping[str, Any]], label: str) -> GroupSummary:
    per_task: dict[str, list[bool]] = defaultdict(list)
    source_of: dict[str, str] = {}
    statuses: Counter[str] = Counter()
    tokens: list[int] = []
    for r in rows:
        statuses[r["status"]] += 1
        if r["status"] == "not_in_dataset":
            continue  # no task to solve: neither a solved nor a failed one
        per_task[r["task_id"]].append(r["status"] == "passed")
        source_of[r["task_id"]] = row_source(r)
        if r.get("tokens") is not None:
            tokens.append(int(r["tokens"]))
    solved = {t for t, oks in per_task.items() if any(oks)}
    by_source: dict[str, tuple[int, int]] = {}
    for src in sorted(set(source_of.values())):
        ts = [t for t, s in source_of.items() if s == src]
        by_source[src] = (sum(t in solved for t in ts), len(ts))
    max_n = max((len(v) for v in per_task.values()), default=0)
    ks = sorted({k for k in _K_LADDER if k <= max_n} | ({max_n} if max_n else set()))
    pass_at: dict[int, float] = {}
    pass_at_tasks: dict[int, int] = {}
    for k in ks:
        vals = [pass_at_k(len(oks), sum(oks), k) for oks in per_task.values() if len(oks) >= k]
        pass_at[k] = sum(vals) / len(vals)
        pass_at_tasks[k] = len(vals)
    total = sum(tokens) if tokens else None
    return GroupSummary(label=label, tasks=len(per_task), candidates=len(rows), solved=len(solved),
                        accuracy_by_source=by_source, pass_at=pass_at, pass_at_tasks=pass_at_tasks,
                        tokens_total=total,
                        tokens_per_solved=(total / len(solved)) if (total is not None and solved) else None,
                        statuses=dict(statuses.most_common()))


def summarize(rows: Iterable[Mapping[str, Any]]) -> list[GroupSummary]:
    """One summary over all candidate rows, then one per (model, method) when rows carry them."""
    task_rows = [r for r in rows if r.get("kind", "task") == "task"]
    out = [_group(task_rows, "all")]
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in task_rows:
        if r.get("model") or r.get("method"):
            groups[" / ".join(str(x) for x in (r.get("model"), r.get("method")) if x)].append(r)
    if len(groups) > 1 or (groups and sum(len(v) for v in groups.values()) < len(task_rows)):
        out.extend(_group(v, k) for k, v in sorted(groups.items()))
    elif len(groups) == 1:
        out = [_group(task_rows, next(iter(groups)))]
    return out


def _pass_cell(g: GroupSummary, k: int) -> str:
    if k not in g.pass_at:
        return "-"
    cell = f"{100 * g.pass_at[k]:.1f}%"
    n = g.pass_at_tasks.get(k, g.tasks)
    # A column over fewer tasks than the group has is another average: say over which tasks.
    return cell if n == g.tasks else f"{cell} ({n}/{g.tasks} tasks)"


def format_table(groups: list[GroupSummary]) -> str:
    """A plain-text table for the terminal."""
    sources = sorted({s for g in groups for s in g.accuracy_by_source})
    ks = sorted({k for g in groups for k in g.pass_at})
    head = ["group", "tasks", "cands", "solved", *[f"acc {s}" for s in sources], *[f"pass@{k}" for k in ks],
            "tokens/solved"]
    lines = [head]
    for g in groups:
        row = [g.label, str(g.tasks), str(g.candidates), str(g.solved)]
        for s in sources:
            solved, n = g.accuracy_by_source.get(s, (0, 0))
            row.append(f"{solved}/{n} ({100 * solved / n:.0f}%)" if n else "-")
        row += [_pass_cell(g, k) for k in ks]
        row.append(f"{g.tokens_per_solved:,.0f}" if g.tokens_per_solved is not None else "-")
        lines.append(row)
    widths = [max(len(r[i]) for r in lines) for i in range(len(head))]
    text = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in lines]
    text.insert(1, "  ".join("-" * w for w in widths))
    for g in groups:
        text.append(f"statuses [{g.label}]: " + ", ".join(f"{k} {v}" for k, v in g.statuses.items()))
    return "\n".join(text)
