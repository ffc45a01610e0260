"""Compare every curated cuBLAS reference with the real cuBLAS on every workload; time both.

    python bench/cublas_vs_reference.py [--records cublas.jsonl] [--out bench/results] [--stem NAME]
    python bench/cublas_vs_reference.py --from-json results.json --stem cublas_vs_reference_h200

Prints one row per routine and workload (max error, tolerance, pass, cuBLAS ms, reference ms, ratio) and
writes <stem>.json and <stem>.md. Needs a CUDA device, except with --from-json (re-render a recorded run).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _tasks(records: str | None):
    from kernelgenbench.dataset.record import Task

    if records:
        rows = [json.loads(line) for line in Path(records).read_text().splitlines() if line.strip()]
    else:
        from kernelgenbench.evaluator.cublas_native import Cublas
        from kernelgenbench.extractors.cublas.headers import fetch
        from kernelgenbench.extractors.cublas.records import extract

        lib = Cublas()
        version = ".".join(lib.version.split(".")[:2])
        lib.close()
        rows = list(extract(fetch(version)).records)
    return [Task.from_dict(r) for r in rows if r["details"]["cublas"]["curated"]]


def _row(c: dict) -> str:
    nat, ref = c.get("native_ms"), c.get("reference_ms")
    ratio = f"{ref / nat:8.1f}x" if nat and ref else " " * 9
    timing = f"{nat:9.3f} {ref:9.3f} {ratio}" if nat and ref else " " * 29
    err = c["max_abs_error"]
    err = f"{err:9.2e}" if isinstance(err, float) else f"{err:>9}"
    return (f"{c['routine']:30s} {c['workload']:26s} {'pass' if c['passed'] else 'FAIL'} {err} "
            f"{c['atol']:9.2e} {timing} {c.get('error') or ''}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", help="JSON Lines from `kgb-extract cublas` (default: extract the header of "
                                      "the installed libcublas's version)")
    ap.add_argument("--out", default="bench/results", help="folder for <stem>.json and <stem>.md")
    ap.add_argument("--stem", default="cublas_vs_reference", help="file name stem of the results")
    ap.add_argument("--no-timing", action="store_true", help="only compare, do not time")
    ap.add_argument("--from-json", help="re-render a recorded results JSON instead of running")
    args = ap.parse_args()

    from kernelgenbench.evaluator.cublas_native import (
        Comparison,
        as_dict,
        compare_all,
        environment,
        report_markdown,
    )

    print(f"{'routine':30s} {'workload':26s} ok   {'max_abs':>9} {'atol':>9} {'cublas_ms':>9} {'ref_ms':>9} "
          f"{'ref/cublas':>9}")
    if args.from_json:
        data = json.loads(Path(args.from_json).read_text())
        env, rows = data["environment"], data["results"]
        for c in rows:
            print(_row(c))
        results = [Comparison(**{k: (float(v) if k.startswith("max_") else tuple(v) if k == "compared" else v)
                                 for k, v in c.items()}) for c in rows]
    else:
        results = compare_all(_tasks(args.records), timing=not args.no_timing, log=lambda c: print(_row(as_dict(c)),
                                                                                                  flush=True))
        env = environment()
        rows = [as_dict(c) for c in results]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.stem}.json").write_text(json.dumps({"environment": env, "results": rows}, indent=1) + "\n")
    (out / f"{args.stem}.md").write_text(report_markdown(results, env))
    failed = [c for c in results if not c.passed]
    print(f"{len(results) - len(failed)}/{len(results)} workloads pass on {env.get('device')} "
          f"(cuBLAS {env.get('cublas')}) -> {out / args.stem}.{{json,md}}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
