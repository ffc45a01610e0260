# kgb-corpus: task=aten/mm expect=torch_fallback evidence=mkldnn::_linear_pointwise static=forbidden_api
# Red team 3 (nonaten_namespace_mm): the GEMM is oneDNN's, torch.ops.mkldnn._linear_pointwise (only torch.ops.aten
# is forbidden by name), with the Python dispatch key excluded so the dispatch recorder never sees it; the profiler
# records 'mkldnn::_linear_pointwise', which the activity recorder once dropped (it kept aten:: names only).
# Expected: torch_fallback (profiled_ops: an op of any namespace that takes tensors is compute).
import torch
import triton
import triton.language as tl

_NO_PY = torch._C.DispatchKeySet(torch._C.DispatchKey.Python)


@triton.jit
def _transpose(b, bt, K, N, sbk, sbn, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # over the (N, K) output
    m = offs < N * K
    n, k = offs // K, offs % K
    tl.store(bt + offs, tl.load(b + k * sbk + n * sbn, mask=m), mask=m)


def mm(self, mat2):
    M, K = self.shape
    N = mat2.shape[1]
    if M * N * K == 0:
        return torch.zeros((M, N), dtype=self.dtype, device=self.device)
    wt = torch.empty((N, K), dtype=mat2.dtype, device=mat2.device)
    _transpose[(triton.cdiv(N * K, 1024),)](mat2, wt, K, N, mat2.stride(0), mat2.stride(1), BLOCK=1024)
    with torch._C._ExcludeDispatchKeyGuard(_NO_PY):
        return torch.ops.mkldnn._linear_pointwise(self.contiguous(), wt, None, "none", [], "")
