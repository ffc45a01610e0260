#!/usr/bin/env bash
# Fetch, here, the wheels the GPU machine's image lacks (it cannot reach a package index), for the device
# tool to carry. Run from the repository root.
#   bash bench/fetch_gpu_wheels.sh        .whl/ for bench/gpu_session.sh; pyarrow goes to .whl/opt/ and is
#                                         installed only where the image's pyarrow is older than datasets needs
#   bash bench/fetch_gpu_wheels.sh real   .kgb_real/whl/ for bench/real_library_session.sh: the same minus
#                                         pyarrow (that session reads JSONL, not parquet), plus FlagGems,
#                                         Liger-Kernel and what they import that the image lacks (sqlalchemy,
#                                         pinned as flag-gems pins it, and its greenlet); the image has torch,
#                                         triton, numpy, packaging, pyyaml and typing-extensions
#   bash bench/fetch_gpu_wheels.sh ray    .whl-ray/ for bench/run_examples_ray_gpu.sh (a call of its own: .whl
#                                         is 62 MiB with pyarrow): Ray and what it imports that the image
#                                         lacks, the Ray wheel slimmed to fit the device tool's 64 MiB (76 MiB
#                                         for cp312, 45 MiB without ray/jars/, the Java workers')
set -euo pipefail
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64
      --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any)
get() { python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        "${plat[@]}" -d "$@"; }
exclude=$(git rev-parse --git-path info/exclude)  # a worktree's .git is a file; this finds the real one
base=(datasets==5.2.0 dill==0.4.1 multiprocess==0.70.19 fsspec==2026.9.0 libcst==1.9.0 pycparser==3.12
      expecttest==0.3.0 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0
      rpds-py==2026.9.1 jsonschema-rs==0.61.2)
if [[ ${1:-} == real ]]; then
  grep -qx '/.kgb_real/' "$exclude" 2>/dev/null || echo /.kgb_real/ >> "$exclude"
  get .kgb_real/whl "${base[@]}" flag-gems==5.0.2 liger-kernel==0.8.5 sqlalchemy==2.0.48 greenlet==3.2.4
  ls .kgb_real/whl
  exit
fi
if [[ ${1:-} == ray ]]; then
  grep -qx '/.whl-ray/' "$exclude" 2>/dev/null || echo /.whl-ray/ >> "$exclude"
  get .whl-ray ray==2.60.0 msgpack==1.2.4 protobuf==7.36.2 click==8.5.1 requests==2.34.2 urllib3==2.8.0 idna==3.20 \
      charset-normalizer==3.5.3 certifi==2026.10.19.post1
  python3 bench/slim_ray_wheel.py .whl-ray/ray-*.whl
  ls -la .whl-ray
  exit
fi
grep -qx '/.whl/' "$exclude" 2>/dev/null || echo /.whl/ >> "$exclude"
get .whl "${base[@]}"
get .whl/opt pyarrow==26.0.1
ls .whl .whl/opt
