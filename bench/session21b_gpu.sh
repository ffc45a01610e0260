#!/usr/bin/env bash
# The second GPU call of session 21 (carry .kgb_real), after red team 13's and the false-positive hunt's fixes
# (scalar subclasses as exact values, pointer stand-ins, op scalars and tensor places logged, names compared in
# order): every real-library candidate that passed at 338f924 through `kgb eval` again (issue 13), the GPU tests,
# and ncu beside kgb on the short kernels (issue 18: is ncu's excess a fixed cost per kernel?).
set -u
. bench/real_session_setup.sh
real_session_setup session21b_log.txt
PASSED=$(python3 -c 'import json
d = json.load(open("bench/results/real_library_h100_s19.json"))
print(",".join(sorted({c["task_id"] for c in d["candidates"] if c["class"] == "passed"})))')
OUT=$OUT/real ONLY=$PASSED ATEN_RECORDS=prepared WORKERS=${WORKERS:-14} BUDGET=${REAL_BUDGET:-230} \
  bash bench/real_library_session.sh --no-direct --rounds 2 > /dev/null 2>&1
grep -E "=== " "$OUT/real/log.txt"
python3 - "$OUT/real/results.jsonl" <<'PY'
import collections, json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "task"]
print("eval:", len(rows), "judged", collections.Counter(r["status"] for r in rows))
for r in rows:
    if r["status"] != "passed":
        print("NOT PASSED", r["candidate_id"], r["status"], str(r.get("evidence"))[:400])
PY
rm -f "$OUT"/real/{candidates,direct,skipped}.jsonl
SHORT=add_4096,tadd_4096,tsum_64x256,copy_65536,sum_65536,add_1048576,tadd_1048576,sum_33554432,fg_sum_33554432
SHORT+=,cos_8388608,fg_cos_8388608,argmax_33554432,fg_argmax_33554432,index_select_4096x4096
step ncu-short 110 python3 bench/bench_timing_vs_ncu.py "$OUT/ncu" --budget-s 90 --only $SHORT --methods kgb,ksum \
  --ncu-columns ncu_flush,ncu_clean --ncu-calls 10
python3 bench/bench_timing_vs_ncu.py --analyze "$OUT/ncu/timing_vs_ncu.json"
step gpu-tests 130 python3 -m pytest -q -p no:cacheprovider -rfE -m gpu tests/test_eval_gpu_evidence.py \
  tests/test_eval_gpu.py tests/test_eval_odd_returns.py tests/test_eval_op_recorder.py tests/test_sol_floors.py
ls -R "$OUT"
