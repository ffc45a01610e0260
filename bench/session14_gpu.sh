#!/usr/bin/env bash
# One bounded GPU call (carry .kgb_real): FlagGems kernels' speedups over their native ops by kgb and by ncu
# (issue 18), the real-library tasks whose speed-of-light floors changed timed again (issue 17), the GPU tests
# of the protocol, evidence and floors, and the red-team corpus on the device when it is in the tree.
set -u
. bench/real_session_setup.sh
real_session_setup session14_log.txt
step ncu-pairs 170 python3 bench/bench_timing_vs_ncu.py "$OUT/ncu" --budget-s 150 --families pairs \
  --only tsum_4096x4096,mm_4096_bfloat16,tadd_16777216 --chunk 16 --methods kgb,ksum --ncu-columns ncu_flush
FLOORS=aten/scatter.reduce,aten/scatter.src,aten/rrelu_with_noise_backward,aten/full,aten/arange,aten/arange.start
FLOORS+=,aten/gather,aten/index_select,aten/index.Tensor,aten/scalar_tensor,aten/empty_strided,aten/cat
FLOORS+=,vllm/rms_norm,vllm/fused_add_rms_norm,vllm/moe_sum,vllm/topk_softmax,vllm/cutlass_scaled_mm
FLOORS+=,vllm/reshape_and_cache,vllm/apply_repetition_penalties_,vllm/grouped_topk
OUT=$OUT/floors ONLY=$FLOORS ATEN_RECORDS=prepared BUDGET=190 \
  bash bench/real_library_session.sh --performance --no-direct --rounds 1 > /dev/null 2>&1
grep -E "^(PASS|FAIL)|Timings under|below|=== " "$OUT/floors/log.txt" "$OUT/floors/real_library_h200.md" | cut -c1-300
rm -f "$OUT"/floors/{candidates,direct,skipped,results}.jsonl
step gpu-tests 150 python3 -m pytest -q -p no:cacheprovider -rfE -m gpu tests/test_eval_gpu.py \
  tests/test_eval_gpu_evidence.py tests/test_sandbox_protocol.py tests/test_sol_floors.py tests/test_eval_odd_returns.py \
  tests/test_eval_op_recorder.py tests/test_timing_parts.py tests/test_cublas_gpu.py
ls -R "$OUT"
