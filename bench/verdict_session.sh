#!/usr/bin/env bash
# The verdict checks that need an accelerator, in one bounded call (the device tool: one command, 10 min):
# the GPU tests of device evidence (launches through any cache, side streams, host copies, library kernels),
# isolation, odd returns, the op recorder and the speed-of-light floor; then the examples through `kgb eval`
# (isolated workers, timed, baselines). Carry .kgb_real (bench/real_library_session.sh --prepare: its wheels).
#   bash bench/verdict_session.sh            outputs under $OUT: log.txt, examples/results.jsonl, summary.txt
set -u
OUT=${OUT:-/tmp/kgb-verdict-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1 KGB_CACHE_DIR=/tmp/kgb-cache
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
  .kgb_real/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
. bench/session_step.sh  # step NAME SECONDS CMD...
step gpu-tests ${TEST_LIMIT:-300} python3 -m pytest -q -p no:cacheprovider -rfE -m "gpu" \
  tests/test_eval_gpu_evidence.py tests/test_eval_gpu.py tests/test_eval_op_recorder.py \
  tests/test_eval_odd_returns.py tests/test_eval_compare_e2e.py
step isolation-tests 150 python3 -m pytest -q -p no:cacheprovider -rfE tests/test_isolation.py
step examples ${EXAMPLES_LIMIT:-200} python3 bench/run_examples_gpu.py "$OUT/examples" --workers 0
step ncu-probe 20 bash -c 'command -v ncu && ncu --version | tail -1'
ls -la "$OUT" "$OUT/examples"
