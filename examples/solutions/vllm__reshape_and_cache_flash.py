"""vLLM reshape_and_cache_flash: scatter each token's K and V rows into paged caches at its slot.

The caches are [num_blocks, block_size, heads, head_size] views of any layout (NHD or HND joint
allocations), addressed through their strides; slot -1 marks padding tokens, which write nothing.
Only kv_cache_dtype 'auto' (cache in the input dtype) is implemented.
"""
import triton
import triton.language as tl


@triton.jit
def _cache_kernel(src_ptr, cache_ptr, slot_ptr, block_size, heads, head_size,
                  ss0, ss1, ss2, cs0, cs1, cs2, cs3, BH: tl.constexpr, BD: tl.constexpr):
    tok = tl.program_id(0)
    slot = tl.load(slot_ptr + tok).to(tl.int64)
    valid = slot >= 0
    safe = tl.where(valid, slot, 0)
    blk = safe // block_size
    off = safe % block_size
    h = tl.arange(0, BH)[:, None]
    d = tl.arange(0, BD)[None, :]
    live_heads = tl.where(valid, heads, 0)  # a padding token masks everything off
    mask = (h < live_heads) & (d < head_size)
    vals = tl.load(src_ptr + tok * ss0 + h * ss1 + d * ss2, mask=mask, other=0.0)
    dst = cache_ptr + blk * cs0 + off * cs1 + h * cs2 + d * cs3
    tl.store(dst, vals.to(cache_ptr.dtype.element_ty), mask=mask)


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale):
    if kv_cache_dtype != "auto":
        raise NotImplementedError(f"kv_cache_dtype {kv_cache_dtype!r}: only 'auto' is implemented")
    tokens, heads, head_size = key.shape
    block_size = key_cache.shape[1]
    if tokens == 0:
        return
    for src, cache in ((key, key_cache), (value, value_cache)):
        _cache_kernel[(tokens,)](src, cache, slot_mapping, block_size, heads, head_size,
                                 src.stride(0), src.stride(1), src.stride(2),
                                 cache.stride(0), cache.stride(1), cache.stride(2), cache.stride(3),
                                 BH=triton.next_power_of_2(heads), BD=triton.next_power_of_2(head_size))
