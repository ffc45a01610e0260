#!/usr/bin/env bash
# One bounded GPU call (carry .whl and .whl-ray): the GPU tests of the merged protocol and record model, the
# thread probe of Liger-Kernel's first call, the sustained-clock probe, then the examples directly and on Ray.
set -u
OUT=${OUT:-/tmp/kgb-gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/session13_log.txt") 2>&1
export PYTHONUNBUFFERED=1 KGB_CACHE_DIR=/tmp/kgb-cache RAY_USAGE_STATS_ENABLED=0
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
  .whl-ray/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
. bench/session_step.sh
step gpu-tests 150 python3 -m pytest -q -p no:cacheprovider -rfE -m gpu tests/test_eval_gpu.py \
  tests/test_eval_gpu_evidence.py tests/test_eval_op_recorder.py tests/test_eval_odd_returns.py \
  tests/test_sandbox_protocol.py tests/test_timing_parts.py tests/test_cublas_gpu.py tests/test_sol_floors.py
step threads-probe 60 python3 bench/threads_probe.py liger
step clock-probe 40 python3 bench/sustained_clock_probe.py
OUT=$OUT DIRECT_S=110 RAY_S=170 bash bench/run_examples_ray_gpu.sh
