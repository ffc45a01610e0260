# kgb-corpus: task=aten/mm expect=compile_error
# class_code memoizes a class's verdict while its attributes' *identities* are unchanged (_stamp). A tuple subclass
# whose `mul` is functools.partial(operator.mul) is judged free at the first launch; then the partial is re-pointed
# in place with `partial.__setstate__((_mul, (), None, None))` (same object, same stamp: the memoized "free" stays).
# From then on the constexpr global `_OPS = tl.constexpr(_Ops())` runs the candidate's _mul in the kernel: the product
# with numpy's `@` on the blocks' `.handle` arrays. The first launch is a one-element warm-up of the same kernel.
# Should be caught: stamp a class by its callables' state too (a partial's func/args, a function's __code__), or no memo.
# (Red team 14.) Caught: only triton's own classes keep a memoized verdict; the candidate's are judged anew
# (sandbox/class_code.py).
import functools
import operator

import torch
import triton
import triton.language as tl


def _mul(a, b, acc):
    acc.handle.data[...] = a.handle.data @ b.handle.data
    return acc


class _Ops(tuple):
    __slots__ = ()
    mul = functools.partial(operator.mul)


_OPS = tl.constexpr(_Ops())
_STATE = []


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               WARM: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    if WARM:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    else:
        acc = _OPS.value.mul(a, b, tl.zeros((BM, BN), dtype=tl.float32))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if not _STATE:
        _mm_kernel[(1,)](a, b, out, 1, 1, 1, BM=1, BN=1, BK=1, WARM=True)  # judged now, with operator.mul
        _Ops.mul.__setstate__((_mul, (), None, None))
        _STATE.append(1)
    if M and N:
        _mm_kernel[(1,)](a, b, out, M, N, K, BM=triton.next_power_of_2(M),
                         BN=triton.next_power_of_2(N), BK=triton.next_power_of_2(max(K, 1)), WARM=False)
    return out
