#!/usr/bin/env bash
# The examples on the one GPU twice, directly and through `kgb eval --ray` (a local Ray instance whose one
# actor takes the GPU), then whether every candidate got the same verdict, and each run's wall time.
#   bash bench/run_examples_ray_gpu.sh   (device tool: carry .whl-ray from `bash bench/fetch_gpu_wheels.sh ray`;
#   .whl must already be there from an earlier call of the same warm machine, e.g. bench/gpu_session.sh, as
#   both do not fit one call's 64 MiB)
set -u
OUT=${OUT:-/tmp/kgb-gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/ray_log.txt") 2>&1
export PYTHONUNBUFFERED=1 KGB_CACHE_DIR=/tmp/kgb-cache RAY_USAGE_STATS_ENABLED=0
wheels=(.whl-ray/*.whl)
[ -d .whl ] && wheels+=(.whl/*.whl)
if [ -d .whl/opt ] && ! python3 -c "import sys, pyarrow; sys.exit(int(pyarrow.__version__.split('.')[0]) < 24)" 2>/dev/null; then
  wheels+=(.whl/opt/pyarrow-*.whl)
fi
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "${wheels[@]}" || exit 1
export PYTHONPATH=/tmp/site:$PWD
python3 -c "import ray, datasets; print('ray', ray.__version__)" || { echo "missing wheels: carry .whl-ray (and .whl earlier)"; exit 1; }
run() {  # run NAME SECONDS ARGS...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  echo "=== $name"
  timeout "$limit" python3 bench/run_examples_gpu.py "$OUT/$name" --workers 0 "$@"
  echo "=== $name: exit $? after $((SECONDS - t0)) s"
}
run direct "${DIRECT_S:-200}"
run ray "${RAY_S:-300}" --ray
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
def verdicts(name):
    rows = [json.loads(x) for x in (Path(sys.argv[1]) / name / "results.jsonl").read_text().splitlines()]
    return {(r["task_id"], r["candidate_id"]): r["status"] for r in rows if r["kind"] == "task"}
d, r = verdicts("direct"), verdicts("ray")
diff = {k: (d.get(k), r.get(k)) for k in d.keys() | r.keys() if d.get(k) != r.get(k)}
print(f"candidates: direct {len(d)}, ray {len(r)}; same verdicts: {not diff}", *sorted(diff.items()), sep="\n")
PY
