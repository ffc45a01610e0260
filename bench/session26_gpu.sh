#!/usr/bin/env bash
# Session 26's GPU call (carry .kgb_real): session 24's real-library re-run (the 23 tasks judged host_compute
# or tampering on the H100 at 3bf838e, before 0ca8258 counted compiles into triton's defaultdict cache), then
# session 22's PART=a (examples against their floors; ncu beside kgb on the short kernels).
set -u
OUT=$OUT bash bench/session24_gpu.sh 2>&1 | grep -v "^=== " | tail -40
PART=a NCU=${NCU:-1} OUT=$OUT bash bench/session22_gpu.sh 2>&1 | tail -40
python3 - "$OUT/examples/results.jsonl" "$OUT/real/results.jsonl" <<'PY'
import json, sys
for path in sys.argv[1:]:
    try:
        rows = [json.loads(x) for x in open(path)]
    except OSError:
        continue
    timed = [r for r in rows if r.get("kind") == "workload" and (r.get("timing") or {}).get("time_us")]
    only = [(r["candidate_id"], r["workload_id"], r["timing"]["timed_only_kernels"]) for r in timed
            if r["timing"].get("timed_only_kernels")]
    print(f"{path}: timed workloads {len(timed)}, with kernels only the timed calls ran: {len(only)}", *only[:20], sep="\n  ")
PY
