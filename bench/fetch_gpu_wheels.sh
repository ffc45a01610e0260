#!/usr/bin/env bash
# Fetch, here, the wheels the GPU machine's image lacks (it cannot reach a package index), into .whl/ for
# the device tool to carry; bench/gpu_session.sh installs them there. pyarrow goes to .whl/opt/ and is
# installed only where the image's pyarrow is older than datasets needs. Run from the repository root.
set -euo pipefail
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
      --platform manylinux2014_x86_64 --platform any)
get() { python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        "${plat[@]}" -d "$@"; }
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo /.whl/ >> .git/info/exclude
get .whl datasets==5.2.0 dill==0.4.1 multiprocess==0.70.19 fsspec==2026.9.0 libcst==1.9.0 pycparser==3.12 \
    expecttest==0.3.0 jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 \
    rpds-py==2026.9.1 jsonschema-rs==0.61.2
get .whl/opt pyarrow==26.0.1
ls .whl .whl/opt
