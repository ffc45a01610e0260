#!/usr/bin/env bash
# One bounded GPU call (carry .kgb_real) after red teams 10 and 11's runtime changes: every real-library candidate
# that passed at 338f924 through `kgb eval` again (issue 13: a new false positive shows as a non-pass), the GPU
# tests (issue 17: the int8 floor; issue 14: evidence), then the ncu comparison of the FlagGems pairs with the
# clock each side ran at (issue 18: do cycles agree where times do not?).
set -u
. bench/real_session_setup.sh
real_session_setup session21_log.txt
SKIP=${SKIP:-}
PASSED=$(python3 -c 'import json
d = json.load(open("bench/results/real_library_h100_s19.json"))
print(",".join(sorted({c["task_id"] for c in d["candidates"] if c["class"] == "passed"})))')
if [[ $SKIP != *real* ]]; then
  OUT=$OUT/real ONLY=$PASSED ATEN_RECORDS=prepared WORKERS=${WORKERS:-14} BUDGET=${REAL_BUDGET:-175} \
    bash bench/real_library_session.sh --no-direct --rounds 2 > /dev/null 2>&1
  grep -E "=== " "$OUT/real/log.txt"
  python3 - "$OUT/real/results.jsonl" <<'PY'
import collections, json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "task"]
print("eval:", collections.Counter(r["status"] for r in rows))
for r in rows:
    if r["status"] != "passed":
        print("NOT PASSED", r["candidate_id"], r["status"], str(r.get("evidence"))[:400])
PY
  rm -f "$OUT"/real/{candidates,direct,skipped}.jsonl
fi
[[ $SKIP == *tests* ]] || step gpu-tests 150 python3 -m pytest -q -p no:cacheprovider -rfE -m gpu \
  tests/test_sol_floors.py tests/test_eval_gpu_evidence.py tests/test_eval_gpu.py tests/test_eval_odd_returns.py \
  tests/test_eval_op_recorder.py
[[ $SKIP == *ncu* ]] || step ncu-pairs $((${NCU_BUDGET:-150} + 30)) python3 bench/bench_timing_vs_ncu.py "$OUT/ncu" \
  --budget-s ${NCU_BUDGET:-150} --families pairs --methods kgb,ksum --ncu-columns ncu_flush --ncu-calls 10
[[ $SKIP == *ncu* ]] || python3 bench/bench_timing_vs_ncu.py --analyze "$OUT/ncu/timing_vs_ncu.json"
ls -R "$OUT"
