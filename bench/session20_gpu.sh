#!/usr/bin/env bash
# One short GPU call (carry .kgb_real) after red team 10's changes (host code inside launches recorded, scalars
# compared between rounds): every real-library candidate that passed at 338f924 (bench/results/
# real_library_h100_s19.json) through `kgb eval` again, correctness only, no direct check (issue 13: a new false
# positive shows as a non-pass here); then the floor and evidence GPU tests (issue 17: the int8 rate fix).
set -u
. bench/real_session_setup.sh
real_session_setup session20_log.txt
PASSED=$(python3 -c 'import json
d = json.load(open("bench/results/real_library_h100_s19.json"))
print(",".join(sorted({c["task_id"] for c in d["candidates"] if c["class"] == "passed"})))')
OUT=$OUT/real ONLY=$PASSED ATEN_RECORDS=prepared WORKERS=${WORKERS:-14} BUDGET=${REAL_BUDGET:-175} \
  bash bench/real_library_session.sh --no-direct --rounds 2 > /dev/null 2>&1
grep -E "=== " "$OUT/real/log.txt"
python3 - "$OUT/real/results.jsonl" <<'PY'
import collections, json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "task"]
print("eval:", collections.Counter(r["status"] for r in rows))
for r in rows:
    if r["status"] != "passed":
        print("NOT PASSED", r["candidate_id"], r["status"], str(r.get("evidence"))[:300])
PY
rm -f "$OUT"/real/{candidates,direct,skipped}.jsonl
step gpu-tests 80 python3 -m pytest -q -p no:cacheprovider -rfE -m gpu tests/test_sol_floors.py \
  tests/test_eval_gpu_evidence.py
ls -R "$OUT"
