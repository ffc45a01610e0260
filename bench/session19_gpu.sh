#!/usr/bin/env bash
# One bounded GPU call (carry .kgb_real): who adds the audit hook in Liger's first call (issue 13), the Liger pair
# and FlagGems' norms through `kgb eval` again, the changed speed-of-light floors (issue 17: cutlass_scaled_mm's
# int8/fp8 rates), and the GPU tests.
set -u
. bench/real_session_setup.sh
real_session_setup session19_log.txt
SKIP=${SKIP:-}  # e.g. "probe floors": steps left out of a follow-up call
[[ $SKIP == *probe* ]] || step audit-probe 60 python3 bench/audit_hook_probe.py liger
NORMS=${NORMS:-vllm/rms_norm,vllm/fused_add_rms_norm,aten/native_layer_norm,aten/_softmax}
OUT=$OUT/liger ONLY=$NORMS ATEN_RECORDS=prepared SHARDS=2 BUDGET=${LIGER_BUDGET:-150} \
  bash bench/real_library_session.sh --rounds 2 > /dev/null 2>&1
grep -E "^(PASS|FAIL)|tampering|=== " "$OUT/liger/log.txt" "$OUT/liger/real_library_h200.md" | cut -c1-300
FLOORS=vllm/cutlass_scaled_mm,aten/scatter.reduce,aten/rrelu_with_noise_backward,aten/index_put_,aten/fill_.Scalar
FLOORS+=,aten/copy_,aten/zeros_like,aten/add.out
[[ $SKIP == *floors* ]] || OUT=$OUT/floors ONLY=$FLOORS ATEN_RECORDS=prepared BUDGET=${FLOORS_BUDGET:-170} \
  bash bench/real_library_session.sh --performance --no-direct --rounds 1 > /dev/null 2>&1
[[ $SKIP == *floors* ]] || grep -E "^(PASS|FAIL)|Timings under|below|=== " "$OUT/floors/log.txt" \
  "$OUT/floors/real_library_h200.md" | cut -c1-300
rm -f "$OUT"/{liger,floors}/{candidates,direct,skipped}.jsonl
step gpu-tests 150 python3 -m pytest -q -p no:cacheprovider -rfE -m gpu tests/test_eval_gpu.py \
  tests/test_eval_gpu_evidence.py tests/test_sandbox_protocol.py tests/test_sol_floors.py tests/test_eval_odd_returns.py \
  tests/test_eval_op_recorder.py tests/test_timing_parts.py
ls -R "$OUT"
