# kgb-honest: task=vllm/reshape_and_cache_flash
"""Style: vLLM's Triton reshape_and_cache_flash (triton_reshape_and_cache_flash.py): a 2-D grid (token, tile of the
flattened heads*head_size row), slot loaded per program and `if slot_idx < 0: return` early exit, int64 slot
arithmetic, cache addressed through its 4 strides, one launch per (key, value) tensor; the fp8 path encodes
e4m3 bytes with integer arithmetic; kv_cache_dtype parsed through a small dict of flags."""
import triton
import triton.language as tl

_FP8_NAMES = {"auto": False, "fp8": True, "fp8_e4m3": True}


@triton.jit
def _e4m3_bits(y):
    sign = y.to(tl.int32, bitcast=True) < 0
    a = tl.abs(y)
    bits = a.to(tl.int32, bitcast=True)
    e = (bits >> 23) - 127
    mb = bits & 0x7FFFFF
    q = mb >> 20
    rem = mb & 0xFFFFF
    up = (rem > 0x80000) | ((rem == 0x80000) & ((q & 1) == 1))
    normal = ((e + 7) << 3) + q + up.to(tl.int32)
    x = a * 512.0
    r = tl.floor(x)
    frac = x - r
    ri = r.to(tl.int32)
    sub = ri + ((frac > 0.5) | ((frac == 0.5) & ((ri & 1) == 1))).to(tl.int32)
    code = tl.where(e < -6, sub, normal)
    code = tl.where(sign, code | 0x80, code)
    return code.to(tl.uint8)


@triton.jit
def _reshape_and_cache_kernel(src_ptr, cache_ptr, slot_mapping_ptr, scale_ptr, block_size, head_size,
                              src_stride_t, src_stride_h, cs_b, cs_p, cs_h, cs_d, n_elems,
                              FP8: tl.constexpr, TILE: tl.constexpr):
    token_idx = tl.program_id(0)
    tile_i = tl.program_id(1)
    slot_idx = tl.load(slot_mapping_ptr + token_idx).to(tl.int64)
    if slot_idx < 0:
        return
    block_idx = slot_idx // block_size
    block_off = slot_idx % block_size
    e = tile_i * TILE + tl.arange(0, TILE)
    m = e < n_elems
    h = e // head_size
    d = e % head_size
    vals = tl.load(src_ptr + token_idx.to(tl.int64) * src_stride_t + h * src_stride_h + d, mask=m)
    dst = cache_ptr + block_idx * cs_b + block_off * cs_p + h * cs_h + d * cs_d
    if FP8:
        y = tl.math.div_rn(vals.to(tl.float32), tl.load(scale_ptr).to(tl.float32))
        y = tl.minimum(tl.maximum(y, -448.0), 448.0)
        tl.store(dst, _e4m3_bits(y), mask=m)
    else:
        tl.store(dst, vals.to(cache_ptr.dtype.element_ty), mask=m)


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale):
    if kv_cache_dtype not in _FP8_NAMES:
        raise NotImplementedError(kv_cache_dtype)
    fp8 = _FP8_NAMES[kv_cache_dtype]
    num_tokens = slot_mapping.shape[0]
    if num_tokens == 0:
        return
    num_heads, head_size = key.shape[1], key.shape[2]
    n_elems = num_heads * head_size
    TILE = min(1024, triton.next_power_of_2(n_elems))
    grid = (num_tokens, triton.cdiv(n_elems, TILE))
    for src, cache, scale in ((key, key_cache, k_scale), (value, value_cache, v_scale)):
        assert src.stride(2) == 1
        _reshape_and_cache_kernel[grid](src, cache, slot_mapping, scale, cache.shape[1], head_size,
                                        src.stride(0), src.stride(1), *cache.stride(), n_elems,
                                        FP8=fp8, TILE=TILE)
