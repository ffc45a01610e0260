"""Run `kgb eval` over the example solutions on the accelerator; write results.jsonl and summary.txt.

    python bench/run_examples_gpu.py OUT_DIR [--device auto] [--workers 1] [--rounds 3]

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--workers", default="1")
    ap.add_argument("--rounds", default="3")
    args = ap.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    results = args.out_dir / "results.jsonl"
    cmd = [*_kgb(), "eval", "--dataset", str(ROOT / "examples" / "tasks.jsonl"),
           "--solutions", str(ROOT / "examples" / "solutions"), "--device", args.device,
           "--workers", args.workers, "--rounds", args.rounds, "--out", str(results)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    sys.stderr.write(proc.stderr)
    lines = [proc.stdout.rstrip(), "", "performance workloads (median us; baselines; fraction of speed of light):"]
    rows = [json.loads(x) for x in results.read_text().splitlines()] if results.exists() else []
    for r in rows:
        if r.get("kind") != "workload" or r.get("purpose") != "performance":
            continue
        t, b, s = r.get("timing") or {}, r.get("baselines") or {}, r.get("sol") or {}
        base = ", ".join(f"{k}={_fmt(v)}" for k, v in b.items() if isinstance(v, (int, float)))
        sol = ", ".join(f"{k}={_fmt(v)}" for k, v in s.items() if isinstance(v, (int, float)))
        lines.append(f"{r['status']:<10} {r['task_id']:<32} {r['workload_id']:<20} time={_fmt(t.get('time_us'))} "
                     f"method={t.get('method', '')} {t.get('reason', '')} | {base or b.get('reason', '-')} | "
                     f"{sol or s.get('reason', '-')}")
    if rows:
        lines.append(f"platform: {json.dumps(rows[-1].get('platform'))}")
    text = "\n".join(lines) + "\n"
    (args.out_dir / "summary.txt").write_text(text)
    print(text)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
