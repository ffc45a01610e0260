# kgb-corpus: task=aten/mm expect=runtime_error
# class_code.own_code_free trusts a method by where its code was written (co_filename in enum, collections,
# dataclasses, typing or abc). typing._tp_cache(fn) wraps any function in typing.py's own `inner(*args, **kw)`,
# which calls `fn` (through an lru_cache, then directly): the method's code is typing's, the work is the
# candidate's. An int subclass whose `mul` is such a wrapper is a plain launch value; the kernel's
# `OPS.mul(a, b, acc)` runs the product with numpy's `@` on the blocks' `.handle` arrays, inside the launch.
# Should be caught: trust a function by identity (the stdlib module's own functions and the methods its factories
# make), not by file: a closure made in a trusted file may close over the candidate's callable (check cells).
# (Red team 13.) Caught: a scalar subclass reaches the launch as its exact value (sandbox/launch_args.py); a
# standard-library function's closure is judged too (sandbox/class_code.py).
import typing

import torch
import triton
import triton.language as tl


def _mul(self, a, b, acc):
    acc.handle.data[...] = a.handle.data @ b.handle.data
    return acc


class _Ops(int):
    __slots__ = ()
    mul = typing._tp_cache(_mul)


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
