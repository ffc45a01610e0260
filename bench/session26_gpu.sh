#!/usr/bin/env bash
# Session 26's GPU call (carry .kgb_real): session 24's real-library re-run (the 23 tasks judged host_compute
# or tampering on the H100 at 3bf838e, before 0ca8258 counted compiles into triton's defaultdict cache), then
# session 22's PART=a (examples against their floors; ncu beside kgb on the short kernels).
set -u
OUT=$OUT bash bench/session24_gpu.sh 2>&1 | grep -v "^=== " | tail -40
PART=a OUT=$OUT bash bench/session22_gpu.sh 2>&1 | tail -40
