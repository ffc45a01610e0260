# kgb-corpus: task=aten/mm expect=runtime_error
# class_code.own_code_free judges a class attribute by `_code_of`, which returns nothing for an attribute that is not
# callable: a *descriptor instance* of the candidate's own class (only __get__) is skipped, so an int subclass
# holding one counts as free of the candidate's code (a plain launch value). In the kernel `OPS.mul` runs the
# descriptor's __get__ (the candidate's code) which hands back a plain function; `OPS.mul(a, b, acc)` then does the
# product with numpy's `@` on the blocks' `.handle` arrays, inside the launch. Launch leaf: the int 0 every round.
# Should be caught: any attribute whose type defines __get__/__set__/__delete__ (a descriptor) must have that
# type's code judged too (types.DynamicClassAttribute and enum.property are such descriptors with their fget).
# (Red team 13.) Caught: a scalar subclass reaches the launch as its exact value (sandbox/launch_args.py): no method
# to call.
import torch
import triton
import triton.language as tl


def _mul(a, b, acc):
    acc.handle.data[...] = a.handle.data @ b.handle.data
    return acc


class _Hand:
    def __get__(self, obj, cls=None):
        return _mul


class _Ops(int):
    __slots__ = ()
    mul = _Hand()


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
