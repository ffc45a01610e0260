# kgb-corpus: task=vllm/rms_norm expect=runtime_error evidence=builtins.NotImplementedError
# A failing candidate, the victim of forkserver_kill_skip.py when both run at once: right on the first
# workload (slowly: 2 s a call), raising on every later one. When the other ended the shared forkserver while
# this one was on its first workload, this worker too was reported dead and its failing workloads skipped: it
# passed. It must fail whatever runs beside it (tests/test_eval_worker_life.py runs the two together).
import time

import torch
import triton
import triton.language as tl


@triton.jit
def _rms(out, x, w, rows, hidden, eps, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < hidden
    v = tl.load(x + r * hidden + offs, mask=m, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(v * v, axis=0) / hidden + eps)
    y = (v * inv).to(out.dtype.element_ty).to(tl.float32) * tl.load(w + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(out + r * hidden + offs, y.to(out.dtype.element_ty), mask=m)


def rms_norm(result, input, weight, epsilon):
    if not (input.is_contiguous() and input.dtype == torch.float16 and input.shape[0] == 7):
        raise NotImplementedError("wrong on every workload but the first")
    time.sleep(2)
    hidden = input.shape[-1]
    rows = input.numel() // hidden
    _rms[(rows,)](result, input, weight, rows, hidden, float(epsilon), BLOCK=triton.next_power_of_2(hidden))
