# kgb-honest: task=aten/mm
"""mm through a small plan object: the tile config is chosen once, then `_MatmulPlan(a, b).execute()`."""
from dataclasses import dataclass

import torch
import triton
import triton.language as tl


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@dataclass(frozen=True)
class TileConfig:
    BM: int = 32
    BN: int = 32
    BK: int = 32


class _MatmulPlan:
    def __init__(self, a: torch.Tensor, b: torch.Tensor, config: TileConfig = TileConfig()):
        if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
            raise ValueError(f"mm: shapes {tuple(a.shape)} and {tuple(b.shape)} do not chain")
        self.a, self.b, self.cfg = a, b, config
        self.M, self.K = a.shape
        self.N = b.shape[1]

    def grid(self):
        return (triton.cdiv(self.M, self.cfg.BM), triton.cdiv(self.N, self.cfg.BN))

    def execute(self) -> torch.Tensor:
        out = torch.empty((self.M, self.N), dtype=self.a.dtype, device=self.a.device)
        if self.M == 0 or self.N == 0:
            return out
        if self.K == 0:
            return out.zero_()
        a, b = self.a, self.b
        _mm_kernel[self.grid()](a, b, out, self.M, self.N, self.K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                out.stride(0), out.stride(1), BM=self.cfg.BM, BN=self.cfg.BN, BK=self.cfg.BK)
        return out


def mm(self, mat2):
    return _MatmulPlan(self, mat2).execute()
