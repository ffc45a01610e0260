# kgb-honest: task=aten/mul.Tensor
"""torch inductor's generated output code that allocates from a pool: one uint8 buffer from empty_strided_cpu,
the output a view into it at a byte offset (torch.ops.inductor._alloc_from_pool, a view built in C++ that no
dispatch mode sees)."""
import torch
import triton
import triton.language as tl
from torch._C import _dynamo as _d

assert_size_stride = _d.guards.assert_size_stride
empty_strided_cpu = _d.guards._empty_strided_cpu
reinterpret_tensor = _d.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool


def grid(xnumel, XBLOCK=128):
    return (triton.cdiv(xnumel, XBLOCK), 1, 1)


@triton.jit
def triton_poi_fused_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x0 = xindex
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tmp1 = tl.load(in_ptr1 + (x0), xmask)
    tmp2 = tmp0 * tmp1
    tl.store(out_ptr0 + (x0), tmp2, xmask)


def call(args):
    arg0_1, arg1_1 = args
    args.clear()
    s = tuple(arg0_1.shape)
    xnumel = 1
    for d in s:
        xnumel *= d
    stride = []
    acc = 1
    for d in reversed(s):
        stride.insert(0, acc)
        acc *= d
    assert_size_stride(arg0_1, s, tuple(stride))
    assert_size_stride(arg1_1, s, tuple(stride))
    pool0 = empty_strided_cpu((max(xnumel, 1) * 4 + 64,), (1,), torch.uint8)
    buf0 = alloc_from_pool(pool0, 64, torch.float32, s, tuple(stride))
    if xnumel:
        triton_poi_fused_mul_0[grid(xnumel)](arg0_1, arg1_1, buf0, xnumel, XBLOCK=128)
    del arg0_1, arg1_1
    return (reinterpret_tensor(buf0, s, tuple(stride), 0),)


def mul_Tensor(self, other):
    if (self.shape != other.shape or self.dtype != torch.float32 or other.dtype != torch.float32
            or not self.is_contiguous() or not other.is_contiguous()):
        dtype = torch.result_type(self, other)
        self, other = (t.to(torch.float32).contiguous() for t in torch.broadcast_tensors(self, other))
        return call([self, other])[0].to(dtype)
    return call([self, other])[0]
