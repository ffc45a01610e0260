# kgb-honest: task=aten/mm
"""Weight-prepacking GEMM (oneDNN/torchao style): mat2 is repacked once into a K-major tile layout and the packed
copy cached per tensor (torch.utils.weak.WeakIdKeyDictionary) with its version counter, so an in-place update of mat2 repacks."""
import torch
import triton
import triton.language as tl
from torch.utils.weak import WeakIdKeyDictionary

_PACKED = WeakIdKeyDictionary()
BK, BN = 16, 16


@triton.jit
def _pack_b(b_ptr, p_ptr, K, N, sbk, sbn, KT, BK: tl.constexpr, BN: tl.constexpr):
    kt = tl.program_id(0)
    nt = tl.program_id(1)
    rk = kt * BK + tl.arange(0, BK)
    rn = nt * BN + tl.arange(0, BN)
    b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    base = (nt * KT + kt) * BK * BN
    tl.store(p_ptr + base + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :], b)


@triton.jit
def _mm_packed(a_ptr, p_ptr, c_ptr, M, N, K, sam, sak, scm, scn, KT,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    nt = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = nt * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kt in range(0, KT):
        kk = kt * BK + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(p_ptr + (nt * KT + kt) * BK * BN + tl.arange(0, BK)[:, None] * BN + tl.arange(0, BN)[None, :])
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _packed(b):
    K, N = b.shape
    hit = _PACKED.get(b)
    if hit is not None and hit[0] == b._version and hit[1] == (tuple(b.shape), b.stride(), b.dtype):
        return hit[2]
    KT, NT = triton.cdiv(K, BK), triton.cdiv(N, BN)
    p = torch.empty(NT * KT * BK * BN, dtype=b.dtype, device=b.device)
    if K and N:
        _pack_b[(KT, NT)](b, p, K, N, b.stride(0), b.stride(1), KT, BK=BK, BN=BN)
    _PACKED[b] = (b._version, (tuple(b.shape), b.stride(), b.dtype), p)
    return p


def mm(self, mat2):
    M, K = self.shape
    N = mat2.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M == 0 or N == 0:
        return out
    if K == 0:
        return out.zero_()
    p = _packed(mat2)
    _mm_packed[(triton.cdiv(M, 16), triton.cdiv(N, BN))](self, p, out, M, N, K, self.stride(0), self.stride(1),
                                                       out.stride(0), out.stride(1), triton.cdiv(K, BK),
                                                       BM=16, BN=BN, BK=BK)
    return out
