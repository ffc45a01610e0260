#!/usr/bin/env bash
# Everything this project records from an accelerator, in one bounded call (the device tool allows one
# command of at most 10 minutes). Each step has its own time limit, so one that hangs loses only itself.
# Outputs under $OUT (at most 8 files, 2 folders deep): log.txt and each step's JSON/Markdown.
#   bash bench/gpu_session.sh   (carry .whl from bench/fetch_gpu_wheels.sh and .kgb_gpu; see bench/results/README.md)
set -u
OUT=${OUT:-/tmp/kgb-gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
export PYTHONUNBUFFERED=1 KGB_CACHE_DIR=/tmp/kgb-cache
# Packages the device image lacks travel as wheels; pyarrow only where the image's is older than datasets needs.
if ! python3 -c "import sys, pyarrow; sys.exit(int(pyarrow.__version__.split('.')[0]) < 24)" 2>/dev/null; then
  extra=".whl/opt/pyarrow-*.whl"
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
  .whl/*.whl ${extra:-} || exit 1
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader

. bench/session_step.sh  # step NAME SECONDS CMD...

# step cublas-vs-reference 170 env KGB_CUBLAS_RECORDS=.kgb_gpu/cublas_13.1_curated.jsonl KGB_CUBLAS_RESULTS="$OUT" \
#   python3 -m pytest -q -p no:cacheprovider tests/test_cublas_gpu.py   (recorded: bench/results/cublas_vs_reference_h200.*)
step examples 130 python3 bench/run_examples_gpu.py "$OUT/examples" --workers 0
step timing 50 python3 bench/bench_timing.py "$OUT"
step timing-noise 60 python3 bench/bench_timing_noise.py --out "$OUT"
step overhead 150 python3 bench/bench_eval_overhead.py "$OUT" --repeats 3 --no-warm
step gpu-tests 60 python3 -m pytest -q -p no:cacheprovider tests/test_eval_transfer.py -m "gpu or not gpu" tests/test_vllm_refs_core.py::test_references_run_on_the_accelerator_as_on_cpu
ls -la "$OUT" "$OUT/examples"
