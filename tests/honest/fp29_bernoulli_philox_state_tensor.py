# kgb-honest: task=aten/bernoulli.p
"""Style (false-positive hunt 14): FlagGems philox_backend_seed_offset ported to generators without a Philox state: each generator gets
a 2-word int64 (seed, offset) state tensor, built once from its initial seed and kept per generator; every call
reads (seed, offset) from it and advances the offset word in place by the counters consumed, exactly as
FlagGems does with a CUDA generator's get_state() view; the kernel runs tl.philox on (offset + idx)."""
import torch
import triton
import triton.language as tl

UNROLL = 4
_STATES = {}


def philox_backend_seed_offset(increment, generator=None):
    if generator is None:
        generator = torch.default_generator
    state = _STATES.get(id(generator))
    if state is None:
        state = torch.tensor([generator.initial_seed() & 0x7FFFFFFF, 0], dtype=torch.int64)
        _STATES[id(generator)] = state
    c0, c1 = state
    seed, offset = int(c0), int(c1)
    increment = (increment + 3) // 4 * 4
    c1 += increment
    return seed, offset


@triton.jit
def _bernoulli_kernel(out_ptr, N, p, philox_seed, philox_offset, BLOCK: tl.constexpr):
    philox_seed = philox_seed.to(tl.int64)
    philox_offset = philox_offset.to(tl.int64)
    c0 = (philox_offset & 0xFFFFFFFF).to(tl.uint32)
    c1 = ((philox_offset >> 32) & 0xFFFFFFFF).to(tl.uint32)
    i4 = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c0 += i4.to(tl.uint32)
    _O = c0 * 0
    r0, r1, r2, r3 = tl.philox(philox_seed, c0, c1, _O, _O)
    base = tl.program_id(0) * BLOCK * 4 + tl.arange(0, BLOCK)
    ty = out_ptr.dtype.element_ty
    tl.store(out_ptr + base, (tl.uint_to_uniform_float(r0) < p).to(ty), mask=base < N)
    tl.store(out_ptr + base + BLOCK, (tl.uint_to_uniform_float(r1) < p).to(ty), mask=base + BLOCK < N)
    tl.store(out_ptr + base + 2 * BLOCK, (tl.uint_to_uniform_float(r2) < p).to(ty), mask=base + 2 * BLOCK < N)
    tl.store(out_ptr + base + 3 * BLOCK, (tl.uint_to_uniform_float(r3) < p).to(ty), mask=base + 3 * BLOCK < N)


def bernoulli_p(self, p, *, generator=None):
    out = torch.empty_like(self, memory_format=torch.contiguous_format)
    N = out.numel()
    if N == 0:
        return out
    BLOCK = 64
    seed, offset = philox_backend_seed_offset(triton.cdiv(N, UNROLL), generator=generator)
    _bernoulli_kernel[(triton.cdiv(N, BLOCK * UNROLL),)](out, N, float(p), seed, offset, BLOCK=BLOCK)
    return out
