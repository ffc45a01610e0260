#!/usr/bin/env bash
# Session 24's second GPU call (carry .kgb_real): the real-library tasks that session 24's first call (PART=b of
# session22_gpu.sh) judged host_compute, re-run at two correctness rounds after the fix that compares a call
# with the previous one of its shapes only when both took the same launch path (a compile on the first call,
# a library's cache of compiled kernels after it). Every verdict is printed.
set -u
. bench/real_session_setup.sh
real_session_setup session24_log.txt
ONLY=${ONLY:-aten/_to_copy,aten/bmm,aten/bmm.out,aten/copy_,aten/cos,aten/div.Scalar,aten/div.Tensor,aten/div.out,aten/eq.Scalar,aten/exponential_,aten/index.Tensor,aten/le.Scalar,aten/masked_fill_.Scalar,aten/mean,aten/mean.dim,aten/neg,aten/ones_like,aten/rsqrt,aten/sin,aten/sum.IntList_out,aten/sum.dim_IntList,aten/add.Tensor,vllm/rms_norm}
OUT=$OUT/real ONLY=$ONLY ATEN_RECORDS=prepared WORKERS=${WORKERS:-14} BUDGET=${REAL_BUDGET:-260} \
  bash bench/real_library_session.sh --no-direct --rounds 2 > /dev/null 2>&1
grep -E "=== " "$OUT/real/log.txt"
python3 - "$OUT/real/results.jsonl" <<'PY'
import collections, json, sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "task"]
print("eval:", len(rows), "judged", collections.Counter(r["status"] for r in rows))
for r in rows:
    print("PASSED" if r["status"] == "passed" else "NOT PASSED", r["candidate_id"], r["status"], str(r.get("evidence"))[:400])
    only = (r.get("timing") or {}).get("timed_only_kernels")
    if only:
        print("   timed_only_kernels:", str(only)[:300])
PY
rm -f "$OUT"/real/{candidates,direct,skipped}.jsonl
