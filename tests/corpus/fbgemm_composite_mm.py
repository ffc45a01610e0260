# kgb-corpus: task=aten/mm expect=torch_fallback evidence=fbgemm_linear_fp16_weight_fp32_activation
# Red team 3 (fbgemm_composite_mm): the GEMM runs in FBGEMM through torch.fbgemm_linear_fp16_weight_fp32_activation,
# a CompositeImplicitAutograd op whose body calls FBGEMM on an `empty` output: composites decompose above the
# Python key (the dispatch recorder never sees them) and the profiler's copy was excused as 'decomposed'. Its
# recorded parts are only empty/resize_: fresh memory and nothing that computes. Expected: torch_fallback
# (profiled_ops: the composite did its work natively). mat2 is split into fp16-exact halves by Triton to meet
# fp32 tolerance.
import torch
import triton
import triton.language as tl


@triton.jit
def _split_t(b, hi, lo, K, N, sbk, sbn, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # over the (N, K) output
    m = offs < N * K
    n, k = offs // K, offs % K
    v = tl.load(b + k * sbk + n * sbn, mask=m)
    h = v.to(tl.float16).to(tl.float32)
    tl.store(hi + offs, h, mask=m)
    tl.store(lo + offs, (v - h).to(tl.float16).to(tl.float32), mask=m)


@triton.jit
def _add(x, y, o, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def mm(self, mat2):
    M, K = self.shape
    N = mat2.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M * N * K == 0:
        return out.zero_()
    hi = torch.empty((N, K), dtype=torch.float32)
    lo = torch.empty((N, K), dtype=torch.float32)
    _split_t[(triton.cdiv(N * K, 1024),)](mat2, hi, lo, K, N, mat2.stride(0), mat2.stride(1), BLOCK=1024)
    a = self.contiguous()
    p_hi = torch.fbgemm_linear_fp16_weight_fp32_activation(a, torch.fbgemm_pack_gemm_matrix_fp16(hi), None)
    p_lo = torch.fbgemm_linear_fp16_weight_fp32_activation(a, torch.fbgemm_pack_gemm_matrix_fp16(lo), None)
    _add[(triton.cdiv(M * N, 1024),)](p_hi, p_lo, out, M * N, BLOCK=1024)
    return out
