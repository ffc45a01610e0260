# kgb-corpus: task=aten/mm expect=runtime_error
# rt12_int_subclass_method_mm past class_code.own_code_free: its `_code_of` skips a class attribute that is itself a
# class ("callable and not a type"), so an int subclass whose `mul` is a *nested class* counts as free of the
# candidate's code (a plain launch value, _plain). Passed as a constexpr, the kernel calls `OPS.mul(a, b, acc)`:
# that constructs the class, whose __new__ (the candidate's code, run inside the launch, recorders paused) does
# the product with numpy's `@` on the blocks' `.handle` arrays. Its launch leaf is the int 0, the same every round.
# Should be caught: own_code_free must judge a class-valued attribute by that class's own code too (recursively),
# or a launch value must be of an exact plain type.
# (Red team 13.) Caught: a scalar subclass reaches the launch as its exact value (sandbox/launch_args.py), so the
# kernel's OPS.mul finds no method: AttributeError, as a GPU compile would refuse it.
import torch
import triton
import triton.language as tl


class _Mul:
    def __new__(cls, a, b, acc):
        acc.handle.data[...] = a.handle.data @ b.handle.data
        return acc


class _Ops(int):
    __slots__ = ()
    mul = _Mul


@triton.jit
def _mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, OPS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
    acc = OPS.mul(a, b, tl.zeros((BM, BN), dtype=tl.float32))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(self, mat2):
    a, b = self.contiguous(), mat2.contiguous()
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=self.dtype, device=self.device)
    if M and N:
        _mm_kernel[(1,)](a, b, out, M, N, K, OPS=_Ops(0), BM=triton.next_power_of_2(M),
                         BN=triton.next_power_of_2(N), BK=triton.next_power_of_2(max(K, 1)))
    return out
