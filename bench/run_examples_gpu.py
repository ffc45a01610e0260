"""Run `kgb eval` over the example solutions on the accelerator; write results.jsonl and summary.txt.

    python bench/run_examples_gpu.py OUT_DIR [--device auto] [--workers 1] [--rounds 3] [--ray [ADDRESS]]

With --ray the same run goes through `kgb eval --ray` (a local Ray instance unless ADDRESS names a cluster).

Prints the summary table, then one line per performance workload: the candidate's median time beside the
baselines and the speed-of-light fraction, as the result rows carry them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _kgb() -> list[str]:
    script = Path(sys.executable).parent / "kgb"
    return [str(script)] if script.exists() else [sys.executable, "-c", "from kernelgenbench.cli.main import main; main()"]


def _fmt(x: object) -> str:
    return f"{x:.2f}" if isinstance(x, (int, float)) else "-"


def performance_lines(rows: list[dict]) -> list[str]:
    """One line per timed workload: time, each baseline's time, and the share of speed of light reached."""
    lines = ["performance workloads (time_us; baselines' time_us; speed-of-light floor and share):"]
    for r in rows:
        if r.get("kind") != "workload" or r.get("purpose") != "performance":
            continue
        t, b, s = r.get("timing") or {}, r.get("baselines") or {}, r.get("sol") or {}
        base = ", ".join(f"{k}={_fmt(v.get('time_us'))}" if v.get("available") else f"{k}: {v.get('reason', '-')[:50]}"
                         for k, v in b.items() if isinstance(v, dict))
        sol = (f"floor {_fmt(s['floor_us'])} ({s.get('bound', '')}), {s['floor_us'] / t['time_us']:.0%}"
               if s.get("available") and s.get("floor_us") and t.get("time_us") else s.get("reason", "-"))
        lines.append(f"{r['status']:<10} {r['task_id']:<30} {r['workload_id']:<20} {_fmt(t.get('time_us')):>9} "
                     f"{t.get('method', '')} {t.get('reason', '')}| {base or '-'} | {sol}")
    if rows:
        lines.append(f"platform: {json.dumps(rows[-1].get('platform'))}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--workers", default="1")
    ap.add_argument("--rounds", default="3")
    ap.add_argument("--ray", nargs="?", const="local", default=None, help="through Ray (an address, or a local one)")
    args = ap.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    results = args.out_dir / "results.jsonl"
    cmd = [*_kgb(), "eval", "--dataset", str(ROOT / "examples" / "tasks.jsonl"),
           "--solutions", str(ROOT / "examples" / "solutions"), "--device", args.device,
           "--workers", args.workers, "--rounds", args.rounds, "--out", str(results),
           *(["--ray", args.ray] if args.ray else [])]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    sys.stderr.write(proc.stderr)
    rows = [json.loads(x) for x in results.read_text().splitlines()] if results.exists() else []
    lines = [proc.stdout.rstrip(), "", *performance_lines(rows)]
    text = "\n".join(lines) + "\n"
    (args.out_dir / "summary.txt").write_text(text)
    print(text)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
