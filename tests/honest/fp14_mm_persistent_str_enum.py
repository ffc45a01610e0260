# kgb-honest: task=aten/mm
"""Style: a persistent GEMM (grid = min(NUM_SMS, tiles), tiles walked with a stride of NUM_SMS; NUM_SMS from a
device query, os.cpu_count() on CPU), grouped tile ordering, precision chosen by a str Enum member passed
straight to input_precision."""
import enum
import os

import torch
import triton
import triton.language as tl


class Precision(str, enum.Enum):  # noqa: UP042 - the style real libraries use
    IEEE = "ieee"
    TF32 = "tf32"


@triton.jit
def _mm_persistent(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, NUM_SMS: tl.constexpr,
                   PREC: tl.constexpr, GROUP: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    total = tiles_m * tiles_n
    for tile in range(pid, total, NUM_SMS):
        per_group = GROUP * tiles_n
        group = tile // per_group
        first_m = group * GROUP
        gsize = tl.minimum(tiles_m - first_m, GROUP)
        pm = first_m + (tile % per_group) % gsize
        pn = (tile % per_group) // gsize
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            kk = k0 + rk
            a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc += tl.dot(a.to(tl.float32), b.to(tl.float32), input_precision=PREC)
        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def _num_sms(device):
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return os.cpu_count() or 1


def mm(self, mat2):
    M, K = self.shape
    N = mat2.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M == 0 or N == 0:
        return out
    if K == 0:
        out.zero_()
        return out
    BM, BN, BK = 32, 32, 32
    sms = _num_sms(self.device)
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
    prec = Precision.IEEE if self.dtype == torch.float32 else Precision.TF32
    _mm_persistent[(min(sms, tiles),)](self, mat2, out, M, N, K, self.stride(0), self.stride(1), mat2.stride(0),
                                       mat2.stride(1), out.stride(0), out.stride(1), NUM_SMS=sms, PREC=prec, GROUP=8,
                                       BM=BM, BN=BN, BK=BK)
    return out
