#!/usr/bin/env bash
# Session 22's GPU calls (carry .kgb_real), PART=a or b (one bounded device call each):
#  a: the examples timed against their speed-of-light floors (issue 17: no correct candidate or baseline
#     under its floor), then ncu beside kgb on the FlagGems pairs and the short kernels with an empty kernel,
#     whose ncu time less kgb's is ncu's fixed cost per kernel (issue 18: kgb against ncu less that cost);
#  b: the real-library corpus with its performance workloads, timed against both baselines and the floors
#     (issue 17), every verdict kept (issue 13: a false positive on a performance workload shows here).
set -u
. bench/real_session_setup.sh
real_session_setup "session22${PART:-a}_log.txt"
if [[ ${PART:-a} == a ]]; then
  step examples 170 python3 bench/run_examples_gpu.py "$OUT/examples" --workers 4 --rounds 2 | grep -v "^passed "
  python3 - "$OUT/examples/results.jsonl" <<'PY'
import collections, json, sys
rows = [json.loads(x) for x in open(sys.argv[1])]
tasks = [r for r in rows if r.get("kind") == "task"]
print("examples:", collections.Counter(r["status"] for r in tasks))
timed = [r for r in rows if r.get("kind") == "workload" and (r.get("timing") or {}).get("time_us")]
below = [(r["task_id"], r["workload_id"], who, t.get("floor_ratio")) for r in timed
         for who, t in [("candidate", r["timing"]), *(r.get("baselines") or {}).items()]
         if isinstance(t, dict) and t.get("below_floor")]
print(f"timed workloads: {len(timed)}; timings under their floor: {len(below)}", *below, sep="\n  ")
PY
  if [[ ${NCU:-1} == 1 ]]; then  # NCU=0: the examples against their floors only
    SHORT=empty,add_4096,tadd_4096,tsum_64x256,sum_65536,add_1048576,tadd_1048576,tsum_4096x4096
    step ncu 230 python3 bench/bench_timing_vs_ncu.py "$OUT/ncu" --budget-s 200 --families pairs --only $SHORT \
      --methods kgb,ksum --ncu-columns ncu_flush --ncu-calls 10 --chunk 12
    python3 bench/bench_timing_vs_ncu.py --analyze "$OUT/ncu/timing_vs_ncu.json" | tail -3
  fi
else
  OUT=$OUT/real EXCLUDE=aten/mm,aten/mm.out ATEN_RECORDS=prepared WORKERS=${WORKERS:-14} BUDGET=${REAL_BUDGET:-560} \
    bash bench/real_library_session.sh --performance --no-direct --rounds 1 > /dev/null 2>&1
  grep -E "=== |under their" "$OUT/real/log.txt"
  python3 - "$OUT/real/results.jsonl" <<'PY'
import collections, json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "task"]
print("eval:", len(rows), "judged", collections.Counter(r["status"] for r in rows))
for r in rows:
    if r["status"] != "passed":
        print("NOT PASSED", r["candidate_id"], r["status"], str(r.get("evidence"))[:300])
PY
  rm -f "$OUT"/real/{candidates,direct,skipped}.jsonl
fi
ls -R "$OUT"
