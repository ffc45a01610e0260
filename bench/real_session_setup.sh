# Sourced by the GPU session scripts that use the real libraries (carry .kgb_real): `real_session_setup LOG`
# sends all output to $OUT/LOG too, installs the carried wheels under /tmp/site, sets the caches and the path,
# loads `step` (bench/session_step.sh) and prints the device.
real_session_setup() {
  OUT=${OUT:-/tmp/kgb-gpu-out}
  mkdir -p "$OUT"
  exec > >(tee "$OUT/$1") 2>&1
  export PYTHONUNBUFFERED=1 KGB_CACHE_DIR=/tmp/kgb-cache GEMS_VENDOR=nvidia FLAGGEMS_CACHE_DIR=/tmp/flaggems-cache
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .kgb_real/whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
  . bench/session_step.sh
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
}
