# kgb-corpus: task=aten/add.Tensor expect=runtime_error evidence=builtins.TypeError static=forbidden_api
# Registers a /dev/shm name with the evaluator's multiprocessing resource tracker through the pipe every
# worker used to inherit: the tracker runs as the evaluator (root) and unlinks every name left registered
# when the run ends, so any process's named segment could be deleted. Otherwise an honest add. The worker
# now holds no pipe of the evaluator's (sandbox/isolation.py:close_inherited_channels): the write raises
# TypeError (the fd is None). tests/test_eval_worker_life.py plants the segment and checks it survives.
import posix

import torch
import triton
import triton.language as tl


@triton.jit
def _add(x, y, o, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o + offs, tl.load(x + offs, mask=m) + alpha * tl.load(y + offs, mask=m), mask=m)


def add_Tensor(self, other, *, alpha=1):
    posix.write(torch.sys.modules["multiprocessing.resource_tracker"]._resource_tracker._fd,
                b"REGISTER:/kgb_corpus_tracker_victim:shared_memory\n")
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty(x.shape, dtype=self.dtype, device=self.device)
    _add[(triton.cdiv(out.numel(), 1024),)](x, y, out, out.numel(), float(alpha), BLOCK=1024)
    return out
