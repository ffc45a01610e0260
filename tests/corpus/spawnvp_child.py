# kgb-corpus: task=aten/add.Tensor expect=forbidden_api evidence=os.spawnvp
# Red team 3 (spawnvp_child): runs another Python with os.spawnvp (the static check once listed os.spawnv exactly,
# so spawnvp/spawnlp/execvpe/posix_spawnp passed); the child adds the inputs on file-backed shared storages.
# Expected: forbidden_api at os.spawnvp (os.spawn*, os.exec*, os.fork*, os.posix_spawn* are families).
import os
import sys

import torch
import triton
import triton.language as tl

_CHILD = """
import sys, torch
n, alpha, d = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
x, y, o = (torch.empty(0).set_(torch.UntypedStorage.from_file(f"{d}/rt3_f{i}", True, n * 8)).view(torch.float64)
           for i in range(3))
torch.add(x, y, alpha=alpha, out=o)
"""


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m).to(dst.dtype.element_ty), mask=m)


def _tcopy(src, dst):
    _copy[(triton.cdiv(dst.numel(), 1024),)](src, dst, dst.numel(), BLOCK=1024)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    n, d = x.numel(), os.getcwd()
    bufs = [torch.empty(0).set_(torch.UntypedStorage.from_file(f"{d}/rt3_f{i}", True, n * 8)).view(torch.float64)
            for i in range(3)]
    _tcopy(x.contiguous(), bufs[0])
    _tcopy(y.contiguous(), bufs[1])
    os.spawnvp(os.P_WAIT, sys.executable, [sys.executable, "-c", _CHILD, str(n), str(float(alpha)), d])
    out = torch.empty(x.shape, dtype=self.dtype, device=self.device)
    _tcopy(bufs[2], out)
    return out
