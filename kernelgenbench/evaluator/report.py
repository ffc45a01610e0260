"""Speed reports from a results file: speedups against each baseline, fast_p, geomean, speed of light.

Pure functions over the JSON lines the evaluator writes ('task' rows with the verdict, 'workload' rows with
timings); the HTML page is one self-contained file with inline SVG, viewable offline.
"""

from __future__ import annotations

import html
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelgenbench import sources
from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.results import headline_us, platform_kind, row_source, sol_fraction
from kernelgenbench.locations import Location

FAST_P = (0.0, 1.0, 1.5, 2.0)
BASELINES = ("reference", "native", "compile")


@dataclass(frozen=True)
class WorkloadSpeed:
    """One timed workload of one candidate."""

    workload_id: str
    time_us: float
    speedup: Mapping[str, float]  # baseline name -> baseline time / candidate time
    sol_fraction: float | None
    launch_bound: bool


@dataclass(frozen=True)
class CandidateSpeed:
    """A candidate's verdict and its timed workloads."""

    task_id: str
    candidate_id: str
    source: str
    category: str
    passed: bool
    status: str
    workloads: tuple[WorkloadSpeed, ...] = field(default_factory=tuple)
    below_floor: int = 0  # its timings under the speed-of-light floor: left out of every speed figure
    baselines_below_floor: int = 0  # baseline timings under the floor on its workloads (the floor is suspect)
    evidence: str = ""  # the verdict's first evidence
    workloads_run: int = 0
    workloads_passed: int = 0
    caveats: tuple[str, ...] = ()  # what the platform could not judge (Triton's interpreter on CPU)
    device: str = ""

    def speedup(self, baseline: str) -> float | None:
        """Geometric mean over the timed workloads of the speedup against `baseline`, or None when untimed."""
        return geomean([w.speedup[baseline] for w in self.workloads if baseline in w.speedup])

    @property
    def sol_fraction(self) -> float | None:
        """Geometric mean of the fraction of speed of light over the timed workloads."""
        return geomean([w.sol_fraction for w in self.workloads if w.sol_fraction])


def geomean(xs: Iterable[float]) -> float | None:
    """Geometric mean of the positive values, or None when there are none."""
    vals = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, vals)) / len(vals)) if vals else None


def read_results(path: Path, torn: list[int] | None = None) -> list[dict[str, Any]]:
    """The rows of a results JSONL; torn rows (a killed run's) are left out, their line numbers appended to
    `torn` where given; any other bad line is an error."""
    if not path.exists():
        raise KgbError(f"{path}: no such results file; pass the --out file of `kgb eval`")
    rows = []
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if i == len(lines) or line.lstrip().startswith("{"):
                # a row torn by a killed run (a resumed run appended after it): no result to show
                if torn is not None:
                    torn.append(i)
                continue
            raise KgbError(Location(str(path), i).message(
                f"not a JSON line ({exc.msg}); is this a `kgb eval` results file?")) from None
    return rows


def _below_floor(t: Any) -> bool:
    return isinstance(t, Mapping) and bool(t.get("below_floor"))


def _workload_speed(row: Mapping[str, Any]) -> WorkloadSpeed | None:
    cand = headline_us(row.get("timing"))
    if not cand or _below_floor(row.get("timing")):
        return None  # a time under the physical floor is no speed: it is counted apart (`below_floor`)
    speedup = {}
    for name, t in (row.get("baselines") or {}).items():
        base = headline_us(t)
        if base:
            speedup[name] = base / cand
    sol = row.get("sol") or {}
    frac = sol_fraction(sol.get("floor_us") if sol.get("available") else None, cand)
    return WorkloadSpeed(row["workload_id"], cand, speedup, frac, bool(row["timing"].get("launch_bound")))


def collect(rows: Sequence[Mapping[str, Any]]) -> list[CandidateSpeed]:
    """One CandidateSpeed per task row, with the timed workload rows of the same candidate attached."""
    timed: dict[tuple[str, str], list[WorkloadSpeed]] = defaultdict(list)
    below: dict[tuple[str, str], int] = defaultdict(int)
    bases_below: dict[tuple[str, str], int] = defaultdict(int)
    for r in rows:
        if r.get("kind") != "workload":
            continue
        key = (r["task_id"], r["candidate_id"])
        below[key] += _below_floor(r.get("timing"))
        bases_below[key] += sum(_below_floor(b) for b in (r.get("baselines") or {}).values())
        if r.get("status") == "passed":
            w = _workload_speed(r)
            if w:
                timed[key].append(w)
    out = []
    for r in rows:
        if r.get("kind") != "task":
            continue
        key = (r["task_id"], r["candidate_id"])
        out.append(CandidateSpeed(
            task_id=r["task_id"], candidate_id=r["candidate_id"], source=row_source(r),
            category=r.get("category") or "", passed=r.get("status") == "passed", status=r.get("status", ""),
            workloads=tuple(timed.get(key, ())), below_floor=below.get(key, 0),
            baselines_below_floor=bases_below.get(key, 0), evidence=str(r.get("evidence") or ""),
            workloads_run=int(r.get("workloads_run") or 0), workloads_passed=int(r.get("workloads_passed") or 0),
            caveats=tuple((r.get("platform") or {}).get("caveats") or ()),
            device=str((r.get("platform") or {}).get("device_name") or ""),
        ))
    return out


def fast_p(cands: Sequence[CandidateSpeed], p: float, baseline: str) -> float | None:
    """Share of candidates that are correct and faster than p x the baseline (KernelBench's fast_p).

    A correct candidate without that baseline (no native vLLM op where vLLM is absent) is left out of the
    share rather than counted as slower; None when that leaves none.
    """
    comparable = [c for c in cands if not c.passed or c.speedup(baseline)]
    if not comparable or (any(c.passed for c in cands) and all(not c.passed for c in comparable)):
        return None
    hits = sum(1 for c in comparable if c.passed and (c.speedup(baseline) or 0.0) > p)
    return hits / len(comparable)


def summary_rows(cands: Sequence[CandidateSpeed], baseline: str) -> list[dict[str, Any]]:
    """Per source, per (source, category) and overall: count, correct share, fast_p, geomean speedup, SOL."""
    groups: dict[tuple[str, str], list[CandidateSpeed]] = defaultdict(list)
    for c in cands:
        groups[(c.source, "")].append(c)
        groups[(c.source, c.category or "-")].append(c)
        groups[("all", "")].append(c)
    rows = []
    for (source, category), cs in sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        correct = [c for c in cs if c.passed]
        rows.append({
            "source": source, "category": category, "n": len(cs),
            "correct": len(correct) / len(cs),
            **{f"fast_{p:g}": fast_p(cs, p, baseline) for p in FAST_P},
            "geomean_speedup": geomean(c.speedup(baseline) for c in correct if c.speedup(baseline)),
            "geomean_sol": geomean(c.sol_fraction for c in correct if c.sol_fraction),
            "timed": sum(1 for c in correct if c.workloads),
            "launch_bound_workloads": sum(w.launch_bound for c in correct for w in c.workloads),
            "below_floor": sum(c.below_floor for c in cs),
            "baselines_below_floor": sum(c.baselines_below_floor for c in cs),
        })
    return rows


def _fmt(x: Any, pct: bool = False) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{100 * x:.0f}%" if pct else f"{x:.3g}"
    return str(x)


def render_text(cands: Sequence[CandidateSpeed]) -> str:
    """The summary tables, one per baseline that has any timing, as plain text."""
    out = []
    for baseline in BASELINES:
        if not any(baseline in w.speedup for c in cands for w in c.workloads):
            continue
        out.append(f"speedup against the {baseline} baseline (geomean over correct candidates; fast_p = correct "
                   f"and faster than p x)")
        head = ["source", "category", "n", "correct", *[f"fast_{p:g}" for p in FAST_P], "geomean", "SOL", "timed"]
        out.append("  ".join(f"{h:>10s}" for h in head))
        for r in summary_rows(cands, baseline):
            vals = [r["source"], r["category"], r["n"], _fmt(r["correct"], True),
                    *[_fmt(r[f"fast_{p:g}"], True) for p in FAST_P], _fmt(r["geomean_speedup"]),
                    _fmt(r["geomean_sol"], True), r["timed"]]
            out.append("  ".join(f"{v!s:>10s}" for v in vals))
        out.append("")
    note = floor_note(cands)
    if note:
        out.append(note)
    if not any(c.workloads for c in cands):
        judged = [c for c in cands if c.status != "not_in_dataset"]
        outside = len(cands) - len(judged)
        out.append(f"{len(judged)} candidates judged, {sum(c.passed for c in judged)} correct"
                   + (f", {outside} for tasks not in the dataset (left out)" if outside else "")
                   + "; no timings in this file (a CPU run checks correctness only)")
    out.append("")
    out.append(render_task_table_text(cands))
    out.extend(f"caveat: {c}" for c in all_caveats(cands))
    return "\n".join(out).strip("\n")


def _evidence_line(c: CandidateSpeed, width: int = 120) -> str:
    first = c.evidence.strip().splitlines()[0] if c.evidence.strip() else ""
    return first[:width]


def all_caveats(cands: Sequence[CandidateSpeed]) -> list[str]:
    """What the platforms of these results could not judge, each once, in first-seen order."""
    return list(dict.fromkeys(x for c in cands for x in c.caveats))


def render_task_table_text(cands: Sequence[CandidateSpeed]) -> str:
    """One line per candidate: task, candidate, status, workloads passed / run, speedup, first evidence."""
    head = ["task", "candidate", "status", "workloads", "speedup", "evidence"]
    rows = [head] + [[c.task_id, c.candidate_id, c.status, f"{c.workloads_passed}/{c.workloads_run}",
                      _fmt(c.speedup("reference")), _evidence_line(c, 80)] for c in _task_order(cands)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head) - 1)]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r[:-1], widths, strict=True)) + "  " + r[-1] for r in rows]
    return "per task\n" + "\n".join(x.rstrip() for x in lines)


def _task_order(cands: Sequence[CandidateSpeed]) -> list[CandidateSpeed]:
    return sorted(cands, key=lambda c: (c.source, c.task_id, c.candidate_id))


def floor_note(cands: Sequence[CandidateSpeed]) -> str:
    """What was left out for falling under the speed-of-light floor, or '' when nothing was."""
    n, nb = sum(c.below_floor for c in cands), sum(c.baselines_below_floor for c in cands)
    parts = []
    if n:
        parts.append(f"{n} candidate workload timing(s) under the speed-of-light floor (impossible unless the floor "
                     f"is wrong) were left out of speedups, geomeans, SOL and fast_p: rows with timing.below_floor")
    if nb:
        parts.append(f"{nb} baseline timing(s) under the floor: that workload's floor is too high (cost model or "
                     f"ceiling) -- see baselines.*.below_floor")
    return "\n".join(parts)


def _colour(group: str) -> str:
    known = {s.name: s.colour for s in sources.sources()}
    return known.get(group, "#8172b3")


def _svg_legend(groups: Sequence[str], x0: int, y: int) -> str:
    """One swatch and name per colour group (the source), under the bars."""
    parts = ['<g class="legend">']
    x = x0
    for g in groups:
        parts.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{_colour(g)}"/>'
                     f'<text x="{x + 14}" y="{y}" font-size="11">{html.escape(g)}</text>')
        x += 28 + int(6.2 * len(g))
    parts.append("</g>")
    return "".join(parts)


def _svg_bars(items: Sequence[tuple[str, float, str]], title: str, log: bool, ref_line: float | None) -> str:
    """A horizontal bar chart as inline SVG: (label, value, colour group) per bar."""
    if not items:
        return f"<p>{html.escape(title)}: nothing timed.</p>"
    # The left margin fits the longest label (about 6.2 px per character at 11 px), so none is clipped.
    left = int(min(max(120, 12 + 6.2 * max(len(label) for label, _, _ in items)), 560))
    width, bar_h = left + 520, 16
    groups = list(dict.fromkeys(g for _, _, g in items))
    height = 40 + bar_h * len(items) + 24
    vals = [v for _, v, _ in items]
    if log:
        lo, hi = min(min(vals), 0.5), max(max(vals), 2.0)
        scale = lambda v: (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))  # noqa: E731
    else:
        hi = max(max(vals), ref_line or 0.0, 1e-9)
        scale = lambda v: v / hi  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">',
             f'<text x="4" y="16" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    for i, (label, v, group) in enumerate(items):
        y = 28 + i * bar_h
        w = max(1.0, scale(v) * (width - left - 60))
        parts.append(f'<text x="{left - 6}" y="{y + 12}" font-size="11" text-anchor="end">{html.escape(label)}</text>')
        parts.append(f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{bar_h - 4}" '
                     f'fill="{_colour(group)}"><title>{html.escape(label)}: {v:.3g}</title></rect>')
        parts.append(f'<text x="{left + w + 4:.1f}" y="{y + 12}" font-size="10">{v:.3g}</text>')
    if ref_line is not None:
        x = left + scale(ref_line) * (width - left - 60)
        parts.append(f'<line x1="{x:.1f}" y1="24" x2="{x:.1f}" y2="{height - 24}" stroke="#c44e52" '
                     'stroke-dasharray="4"/>')
    parts.append(_svg_legend(groups, left, height - 14))
    parts.append("</svg>")
    return "\n".join(parts)


def _html_correctness(cands: Sequence[CandidateSpeed]) -> str:
    """Counts, and a plot of the share of each task's candidates that passed (what a CPU run measures)."""
    judged = [c for c in cands if c.status != "not_in_dataset"]
    outside = len(cands) - len(judged)
    per_task: dict[tuple[str, str, str], list[bool]] = defaultdict(list)
    for c in judged:
        per_task[(c.source, c.task_id, c.category)].append(c.passed)
    devices = sorted({c.device for c in cands if c.device})
    line = (f"{len(judged)} candidates judged on {len(per_task)} tasks, {sum(c.passed for c in judged)} correct"
            + (f"; {outside} for tasks not in the dataset (left out)" if outside else "")
            + (f"; device: {', '.join(devices)}" if devices else "") + ".")
    items = [(f"{tid} [{cat}]" if cat else tid, sum(oks) / len(oks), src)
             for (src, tid, cat), oks in sorted(per_task.items())]
    return (f"<p>{html.escape(line)}</p><h2>Correctness</h2>"
            + _svg_bars(items, "share of each task's candidates that passed (dashed: all)", False, 1.0))


def _html_task_table(cands: Sequence[CandidateSpeed]) -> str:
    """Every candidate: task, category, candidate, status, workloads passed / run, speedup, first evidence."""
    if not cands:
        return "<h2>Per task</h2><p>No candidate rows in this file.</p>"
    head = ["task", "category", "candidate", "status", "workloads passed/run", "speedup vs reference", "evidence"]
    out = ['<h2>Per task</h2><table class="tasks"><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for c in _task_order(cands):
        cls = "passed" if c.passed else ("not_in_dataset" if c.status == "not_in_dataset" else "failed")
        cells = [c.task_id, c.category, c.candidate_id]
        out.append("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in cells)
                   + f'<td class="{cls}">{html.escape(c.status)}</td>'
                   + f"<td>{c.workloads_passed}/{c.workloads_run}</td><td>{_fmt(c.speedup('reference'))}</td>"
                   + f"<td>{html.escape(_evidence_line(c, 160))}</td></tr>")
    out.append("</table>")
    return "".join(out)


def render_html(cands: Sequence[CandidateSpeed], title: str = "kernelgenbench report") -> str:
    """A self-contained HTML page: summary tables and per-task plots of speedup and fraction of speed of light."""
    body = [f"<h1>{html.escape(title)}</h1>", _html_correctness(cands)]
    for baseline in BASELINES:
        if not any(baseline in w.speedup for c in cands for w in c.workloads):
            continue
        body.append(f"<h2>Against the {baseline} baseline</h2><table><tr>"
                    + "".join(f"<th>{h}</th>" for h in ["source", "category", "n", "correct",
                                                       *[f"fast_{p:g}" for p in FAST_P], "geomean speedup",
                                                       "geomean SOL", "timed"]) + "</tr>")
        for r in summary_rows(cands, baseline):
            cells = [r["source"], r["category"], r["n"], _fmt(r["correct"], True),
                     *[_fmt(r[f"fast_{p:g}"], True) for p in FAST_P], _fmt(r["geomean_speedup"]),
                     _fmt(r["geomean_sol"], True), r["timed"]]
            body.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        body.append("</table>")
        ordered = sorted((c for c in cands if c.passed and c.speedup(baseline)), key=lambda c: (c.source, c.category, c.task_id))
        items = [(f"{c.task_id} [{c.category}]" + (f" #{c.candidate_id}" if c.candidate_id else ""),
                  c.speedup(baseline), c.source) for c in ordered]
        body.append(_svg_bars(items, f"speedup vs {baseline} per task (log scale; dashed: 1x)", True, 1.0))
    sol = sorted((c for c in cands if c.passed and c.sol_fraction), key=lambda c: (c.source, c.category, c.task_id))
    if not any(c.workloads for c in cands):
        body.append("<p>No timings in this file: a CPU run (Triton's interpreter) checks correctness only.</p>")
    else:
        body.append("<h2>Fraction of speed of light</h2>")
        body.append(_svg_bars([(f"{c.task_id} [{c.category}]", c.sol_fraction, c.source) for c in sol],
                              "measured floor time / kernel time per task (1.0 = the device's limit)", False, 1.0))
    note = floor_note(cands)
    if note:
        body.append("<h2>Under the speed-of-light floor</h2>" + "".join(f"<p>{html.escape(x)}</p>" for x in note.splitlines()))
    body.append(_html_task_table(cands))
    caveats = all_caveats(cands)
    if caveats:
        body.append("<h2>Caveats of the platform</h2><ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in caveats)
                    + "</ul>")
    style = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1em}"
             "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
             "table.tasks td,table.tasks th{text-align:left}td.passed{color:#2a7a2a}td.failed{color:#b22}"
             "td.not_in_dataset{color:#777}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>")


def platform_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Per platform kind of a multi-platform run (`kgb eval --ray --platforms all`): candidates, correct share,
    timed, geomean speedup against the reference; then the candidates whose verdicts differ. '' for one platform."""
    by_kind: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in rows:
        by_kind[platform_kind(r.get("platform"))].append(r)
    if len(by_kind) < 2:
        return ""
    head = ["platform", "device", "n", "correct", "timed", "geomean"]
    table = [head]
    verdicts: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for kind, rs in by_kind.items():
        cands = collect(rs)
        correct = [c for c in cands if c.passed]
        device = next((str(r["platform"].get("device_name", "")) for r in rs if r.get("platform")), "")
        geo = geomean(c.speedup("reference") for c in correct if c.speedup("reference"))
        table.append([kind, device[:28], str(len(cands)), _fmt(len(correct) / len(cands), True) if cands else "-",
                      str(sum(1 for c in correct if c.workloads)), _fmt(geo)])
        for c in cands:
            verdicts[(c.task_id, c.candidate_id)][kind] = c.status
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    out = ["per platform (geomean: speedup against the reference over correct timed candidates)"]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in table]
    differ = {k: v for k, v in verdicts.items() if len(set(v.values())) > 1 or len(v) < len(by_kind)}
    if differ:
        out.append(f"verdicts that differ between platforms ({len(differ)}):")
        for (task, cand), v in sorted(differ.items()):
            out.append(f"  {task} [{cand}]: " + ", ".join(f"{k} {v.get(k, '-')}" for k in by_kind))
    return "\n".join(out)
