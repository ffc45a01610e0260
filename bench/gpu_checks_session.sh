#!/usr/bin/env bash
# The second GPU call of a session: the GPU tests of the verdict checks (device evidence, op recorder, odd
# returns, floors), the speed-of-light floors of the native ops (bench/bench_floors.py) and kgb's times beside
# Nsight Compute's (bench/bench_timing_vs_ncu.py), each step bounded. Carry .whl (datasets & co.).
#   bash bench/gpu_checks_session.sh     outputs under $OUT: checks_log.txt, bench_floors JSON, timing_vs_ncu.json
set -u
OUT=${OUT:-/tmp/kgb-gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/checks_log.txt") 2>&1
export PYTHONUNBUFFERED=1 KGB_CACHE_DIR=/tmp/kgb-cache
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  || exit 1
export PYTHONPATH=/tmp/site:$PWD
step() {  # step NAME SECONDS CMD...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  echo "=== $name (limit ${limit}s)"
  timeout "$limit" "$@"
  echo "=== $name: exit $? after $((SECONDS - t0)) s"
}
step gpu-tests 200 python3 -m pytest -q -p no:cacheprovider -rfE -m gpu tests/test_eval_gpu_evidence.py \
  tests/test_eval_gpu.py tests/test_eval_op_recorder.py tests/test_eval_odd_returns.py tests/test_sol_floors.py
step floors 90 python3 bench/bench_floors.py "$OUT"
step timing-vs-ncu 280 python3 bench/bench_timing_vs_ncu.py "$OUT" --budget-s 240
ls -la "$OUT"
