# kgb-honest: task=aten/mm
"""Style: host-side TensorDescriptor (triton.tools.tensor_descriptor), as Triton's persistent matmul tutorial and
FlagGems' TMA paths build them; block loads through desc.load, contiguous fp32 operands."""
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _mm_desc_kernel(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = a_desc.load([om, k0])
        b = b_desc.load([k0, on])
        acc += tl.dot(a, b, input_precision="ieee")
    c_desc.store([om, on], acc.to(c_desc.dtype))


def mm(self, mat2):
    M, K = self.shape
    N = mat2.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M == 0 or N == 0:
        return out
    if K == 0:
        return out.zero_()
    BM, BN, BK = 16, 16, 16
    # TMA wants 16-byte aligned row strides: pad rows to a multiple of 4 fp32 words (zero padding, as the
    # tutorial's host code does for odd shapes); the output is written into a padded buffer and sliced.
    Kp, Np = triton.cdiv(K, 4) * 4, triton.cdiv(N, 4) * 4
    a = self.new_zeros((M, Kp))
    a[:, :K] = self
    b = mat2.new_zeros((K, Np))
    b[:, :N] = mat2
    out_p = torch.empty((M, Np), dtype=self.dtype, device=self.device)
    a_desc = TensorDescriptor.from_tensor(a, [BM, BK])
    b_desc = TensorDescriptor.from_tensor(b, [BK, BN])
    c_desc = TensorDescriptor.from_tensor(out_p, [BM, BN])
    _mm_desc_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](a_desc, b_desc, c_desc, K, BM=BM, BN=BN, BK=BK)
    return out_p[:, :N] if Np != N else out_p
