# kgb-honest: task=aten/bernoulli.p
"""Style: FlagGems bernoulli_ / uniform_: seed and Philox offset read from the torch generator's state tensor
(`philox_backend_seed_offset`: get_state(), view it as int64, advance the offset word by the number of
4-value draws consumed, set_state back; a non-Philox CPU generator gets a 16-byte shadow Philox state), tl.philox called directly on (offset + idx) counters with an UNROLL of
4 outputs per counter, uint_to_uniform_float for [0, 1) floats; logging.debug on entry."""
import logging

import torch
import triton
import triton.language as tl

logger = logging.getLogger(__name__)
UNROLL = 4


_SHADOW_STATES = {}


def _state_for(generator):
    """CUDA generators keep Philox (seed, offset) words in their state; other generators (CPU mt19937) get a
    shadow 2-word Philox state seeded from the generator, kept per generator object."""
    state_copy = generator.get_state()
    if state_copy.numel() == 16:
        return state_copy, True
    shadow = _SHADOW_STATES.get(id(generator))
    if shadow is None:
        shadow = torch.zeros(16, dtype=torch.uint8)
        shadow.view(torch.int64)[0] = generator.initial_seed() & 0x7FFFFFFFFFFFFFFF
        _SHADOW_STATES[id(generator)] = shadow
    return shadow, False


def philox_backend_seed_offset(increment, generator=None):
    if generator is None:
        generator = torch.default_generator
    state_copy, native = _state_for(generator)
    c0, c1 = state_copy.view(torch.int64)
    seed, offset = int(c0), int(c1)
    increment = (increment + 3) // 4 * 4
    c1 += increment
    if native:
        generator.set_state(state_copy)
    return seed, offset


@triton.jit(do_not_specialize=["philox_seed", "philox_offset", "p"])
def _bernoulli_kernel(out_ptr, N, p, philox_seed, philox_offset, BLOCK: tl.constexpr):
    philox_seed = philox_seed.to(tl.int64)
    philox_offset = philox_offset.to(tl.int64)
    c0 = (philox_offset & 0xFFFFFFFF).to(tl.uint32)
    c1 = ((philox_offset >> 32) & 0xFFFFFFFF).to(tl.uint32)
    i4 = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c0 += i4.to(tl.uint32)
    _O = c0 * 0
    r0, r1, r2, r3 = tl.philox(philox_seed, c0, c1, _O, _O)
    u0 = tl.uint_to_uniform_float(r0)
    u1 = tl.uint_to_uniform_float(r1)
    u2 = tl.uint_to_uniform_float(r2)
    u3 = tl.uint_to_uniform_float(r3)
    off_0 = tl.program_id(0) * BLOCK * 4 + tl.arange(0, BLOCK)
    off_1 = off_0 + BLOCK
    off_2 = off_1 + BLOCK
    off_3 = off_2 + BLOCK
    ty = out_ptr.dtype.element_ty
    tl.store(out_ptr + off_0, tl.where(u0 < p, 1.0, 0.0).to(ty), mask=off_0 < N, eviction_policy="evict_first")
    tl.store(out_ptr + off_1, tl.where(u1 < p, 1.0, 0.0).to(ty), mask=off_1 < N, eviction_policy="evict_first")
    tl.store(out_ptr + off_2, tl.where(u2 < p, 1.0, 0.0).to(ty), mask=off_2 < N, eviction_policy="evict_first")
    tl.store(out_ptr + off_3, tl.where(u3 < p, 1.0, 0.0).to(ty), mask=off_3 < N, eviction_policy="evict_first")


def bernoulli_p(self, p, *, generator=None):
    logger.debug("GEMS BERNOULLI")
    out = torch.empty_like(self, memory_format=torch.contiguous_format)
    N = out.numel()
    if N == 0:
        return out
    BLOCK = 256
    grid_fn = lambda meta: (triton.cdiv(N, meta["BLOCK"] * UNROLL),)  # noqa: E731 - FlagGems writes its grids so
    seed, offset = philox_backend_seed_offset(triton.cdiv(N, UNROLL), generator=generator)
    _bernoulli_kernel[grid_fn](out, N, float(p), seed, offset, BLOCK=BLOCK)
    return out
