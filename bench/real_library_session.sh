#!/usr/bin/env bash
# The real-library corpus on the accelerator, in one bounded call (the device tool: one command, 10 min):
# FlagGems' ATen overloads and vLLM drop-ins and Liger-Kernel's RMSNorm wrapped as kgb candidates
# (bench/real_library_corpus.py), each run directly against its reference, `kgb eval` over all of them,
# then every non-pass classified. Each step has its own time limit, so one that hangs loses only itself.
#   here, once:  bash bench/real_library_session.sh --prepare
#                (.kgb_real/: the wheels, bench/fetch_gpu_wheels.sh real; the curated vLLM 0.13.0 records; the
#                curated ATen records of this machine's torch, used there only if extracting them there fails)
#   GPU:         bash bench/real_library_session.sh [--performance] [--no-direct] [--rounds N] [--detect-vendor]
#                (carry .kgb_real; SHARDS=4 direct processes, WORKERS=8 kgb eval workers, BUDGET=560 s,
#                EVAL_ARGS: more `kgb eval` options, e.g. "--timeout 300"; ONLY: comma-separated task ids (EXCLUDE: all but those);
#                DIRECT_LIMIT: seconds for the direct check, default 2/5 of what is left)
# --performance keeps the timed workloads (kgb eval times them against the baselines; slower); by
# default the run is correctness only; with --no-direct (for a timing run) the direct check is skipped and
# classify can explain no non-pass. --detect-vendor: let flag_gems find its vendor itself (below).
# Outputs under $OUT: log.txt, candidates.jsonl, skipped.jsonl, direct.jsonl, results.jsonl,
# real_library_h200.{md,json}.
set -u
if [[ ${1:-} == --prepare ]]; then
  set -e
  bash bench/fetch_gpu_wheels.sh real
  kgb-extract vllm --rev v0.13.0 --out /tmp/kgb-vllm-0.13.0.jsonl --no-progress
  python3 bench/real_library_corpus.py dataset --tasks /tmp/kgb-vllm-0.13.0.jsonl --config vllm \
    --out .kgb_real/vllm_0.13.0_curated.jsonl
  kgb-extract aten --only-curated --out .kgb_real/aten_curated_prepared.jsonl --no-progress
  du -sh .kgb_real
  exit
fi
detect=0 direct=1 performance=0 rounds=2 shards=${SHARDS:-4} workers=${WORKERS:-8}
while (($#)); do
  case $1 in
    --performance) performance=1 ;;
    --detect-vendor) detect=1 ;;
    --no-direct) direct=0 ;;
    --rounds) rounds=$2; shift ;;
    *) echo "unknown argument $1"; exit 2 ;;
  esac
  shift
done
OUT=${OUT:-/tmp/kgb-real-out}
W=/tmp/kgb-real
rm -rf "$W"; mkdir -p "$OUT" "$W"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1 KGB_CACHE_DIR=/tmp/kgb-cache FLAGGEMS_CACHE_DIR=/tmp/flaggems-cache
# Without GEMS_VENDOR, importing flag_gems finds the vendor by running each vendor's query command
# (nvidia-smi, ...) in threads, which a sandboxed candidate may not do; --detect-vendor leaves it unset.
((detect)) || export GEMS_VENDOR=nvidia
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
  .kgb_real/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
KGB=(python3 -c 'from kernelgenbench.cli.main import main; main()')
CORPUS=(python3 bench/real_library_corpus.py)
BUDGET=${BUDGET:-560}  # seconds for the whole session, inside the device tool's 600
left() { echo $((BUDGET - SECONDS - 20)); }  # what remains, less the classification's share
. bench/session_step.sh  # step NAME SECONDS CMD...
direct_shard() {  # direct_shard K DEADLINE LIMIT; a CUDA error (exit 3) or a crash: resume in a fresh process
  local rc=3 try
  for try in 1 2 3 4 5 6; do
    ((SECONDS < $2)) || break
    timeout $(($2 - SECONDS)) "${CORPUS[@]}" direct --dataset "$W/tasks.jsonl" --candidates "$OUT/candidates.jsonl" \
      --out "$W/direct.$1.jsonl" --rounds 1 --shard "$1/$shards" >> "$W/direct.$1.log" 2>&1
    rc=$?
    [[ $rc == 0 || $rc == 124 ]] && break
  done
  # A shard out of time: the candidate it was running is `unfinished` (classify: a library slow directly too).
  [[ $rc == 124 ]] && "${CORPUS[@]}" direct --dataset "$W/tasks.jsonl" --candidates "$OUT/candidates.jsonl" \
    --out "$W/direct.$1.jsonl" --mark-unfinished "$3" >> "$W/direct.$1.log" 2>&1
  echo "direct shard $1: exit $rc after $try tries" >> "$W/direct.$1.log"
}

# ATen records from this machine's torch (what FlagGems registers against); if that fails, the ones made
# by --prepare from the development machine's torch.
# ATEN_RECORDS=prepared: use those directly (a short follow-up run).
[[ ${ATEN_RECORDS:-} == prepared ]] && cp .kgb_real/aten_curated_prepared.jsonl "$W/aten.jsonl" ||
step aten-records 90 "${KGB[@]}" extract aten --only-curated --out "$W/aten.jsonl" --no-progress ||
  { echo "using .kgb_real/aten_curated_prepared.jsonl instead"; cp .kgb_real/aten_curated_prepared.jsonl "$W/aten.jsonl"; }
step dataset 30 "${CORPUS[@]}" dataset --tasks "$W/aten.jsonl" .kgb_real/vllm_0.13.0_curated.jsonl --config ms \
  --out "$W/tasks.jsonl" $([[ $performance == 1 ]] || echo --no-performance) || exit 1
step candidates 120 "${CORPUS[@]}" candidates --dataset "$W/tasks.jsonl" --out "$OUT/candidates.jsonl" \
  --skipped "$OUT/skipped.jsonl"
if [[ -n ${ONLY:-}${EXCLUDE:-} ]]; then  # ONLY=aten/mm,vllm/rms_norm: just these tasks' candidates; EXCLUDE: all but these
  python3 -c 'import json, sys
only, skip = (set(filter(None, a.split(","))) for a in sys.argv[2:4])
rows = [line for line in open(sys.argv[1])
        if (not only or json.loads(line)["task_id"] in only) and json.loads(line)["task_id"] not in skip]
open(sys.argv[1], "w").writelines(rows)' "$OUT/candidates.jsonl" "${ONLY:-}" "${EXCLUDE:-}"
fi
[[ -s $OUT/candidates.jsonl ]] || exit 1
# The direct check (correctness workloads, one round) in parallel shards; it also fills Triton's cache.
t0=$SECONDS limit=${DIRECT_LIMIT:-$(( $(left) * 2 / 5 ))}
: > "$OUT/direct.jsonl"
if ((direct)); then
  echo "=== direct ($shards shards, limit ${limit}s)"
  pids=()
  for ((k = 0; k < shards; k++)); do direct_shard "$k" $((SECONDS + limit)) "$limit" & pids+=($!); done
  wait "${pids[@]}"  # by pid: a bare wait would also wait for the log's tee, which never ends
  cat "$W"/direct.*.log
  cat "$W"/direct.*.jsonl > "$OUT/direct.jsonl"
  echo "=== direct: $(grep -c '"kind": "direct"' "$OUT/direct.jsonl") candidates after $((SECONDS - t0)) s"
fi
# The workers run under their own uid (isolation): flag_gems' cache goes to their HOME, not the root-owned one.
step eval "$(left)" env -u FLAGGEMS_CACHE_DIR "${KGB[@]}" eval --dataset "$W/tasks.jsonl" --solutions "$OUT/candidates.jsonl" \
  --device auto --workers "$workers" --rounds "$rounds" --out "$OUT/results.jsonl" ${EVAL_ARGS:-}
step classify 30 "${CORPUS[@]}" classify --results "$OUT/results.jsonl" --direct "$OUT/direct.jsonl" \
  --candidates "$OUT/candidates.jsonl" --skipped "$OUT/skipped.jsonl" --out "$OUT/real_library_h200.md" > /dev/null
ls -la "$OUT"
# The device tool brings back at most 8 files: everything also as one archive.
tar -C "$OUT" -czf /tmp/real_library_all.tgz . && mv /tmp/real_library_all.tgz "$OUT/"
