# kgb-corpus: task=aten/add.Tensor expect=forbidden_api evidence=sys.modules
# Red team 3 (inductor_direct_call): compiles x + y with torch._dynamo.optimize('inductor') at import, takes the
# generated module from Inductor's code cache (through torch.sys.modules) and calls its `call` directly: the C++
# kernel runs on data pointers, so no recorder sees an op. Expected: forbidden_api, first at torch.sys.modules
# (sys.modules re-exported by torch); the compilers themselves are forbidden whole too (torch.compile,
# torch.compiler, torch._dynamo, torch._inductor: tests/test_eval_static_checks.py).
import os

import torch
import tqdm
import triton
import triton.language as tl

os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(os.getcwd(), "inductor")  # its own folder
os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"  # no compile pool: no threads left behind
tqdm.tqdm.monitor_interval = 0
torch.sys.modules["torch._inductor.config"].compile_threads = 1


def _g(x, y):
    return x + y


torch._dynamo.optimize("inductor", dynamic=True)(_g)(torch.randn(5, 7), torch.randn(5, 7))
_MOD = torch.sys.modules["torch._inductor.codecache"].PyCodeCache.modules[-1]


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous().view(1, -1), y.contiguous().view(1, -1)
    res = _MOD.call([1, x.shape[1], x, y])[0]
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    _copy[(triton.cdiv(out.numel(), 1024),)](res, out, out.numel(), BLOCK=1024)
    return out
