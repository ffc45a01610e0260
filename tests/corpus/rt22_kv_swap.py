# kgb-corpus: task=vllm/reshape_and_cache_flash expect=incorrect_numerics
# red team 22: vLLM reshape_and_cache_flash, wrong in place: the joint K/V allocation's key and value halves are
# swapped (old contents included), the new rows scattered into the swapped halves, and key_cache / value_cache
# re-pointed (as_strided_, same storage) at each other's offsets. Each argument object shows the right cache; the
# caller's joint cache now holds values where keys belong and keys where values belong. Now a written argument is
# judged through the view the caller handed over, unless the call resized it.
import triton
import triton.language as tl


@triton.jit
def _swap(ptr, off_a, off_b, n, s0, s1, s2, s3, d1, d2, d3, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    i3 = i % d3
    i2 = (i // d3) % d2
    i1 = (i // (d3 * d2)) % d1
    i0 = i // (d3 * d2 * d1)
    addr = i0 * s0 + i1 * s1 + i2 * s2 + i3 * s3
    a = tl.load(ptr + off_a + addr, mask=m)
    b = tl.load(ptr + off_b + addr, mask=m)
    tl.store(ptr + off_a + addr, b, mask=m)
    tl.store(ptr + off_b + addr, a, mask=m)


@triton.jit
def _to_e4m3_bits(y):
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
def _cache_kernel(src_ptr, cache_ptr, slot_ptr, scale_ptr, num_tokens, block_size, heads, head_size,
                  ss0, ss1, ss2, cs0, cs1, cs2, cs3, FP8: tl.constexpr, TOKENS: tl.constexpr,
                  BH: tl.constexpr, BD: tl.constexpr):
    h = tl.arange(0, BH)[:, None]
    d = tl.arange(0, BD)[None, :]
    for i in range(TOKENS):
        tok = tl.program_id(0) * TOKENS + i
        in_range = tok < num_tokens
        slot = tl.load(slot_ptr + tl.minimum(tok, num_tokens - 1)).to(tl.int64)
        valid = (slot >= 0) & in_range
        safe = tl.where(valid, slot, 0)
        blk = safe // block_size
        off = safe % block_size
        live_heads = tl.where(valid, heads, 0)
        mask = (h < live_heads) & (d < head_size)
        vals = tl.load(src_ptr + tok * ss0 + h * ss1 + d * ss2, mask=mask, other=0.0)
        dst = cache_ptr + blk * cs0 + off * cs1 + h * cs2 + d * cs3
        if FP8:
            y = tl.math.div_rn(vals.to(tl.float32), tl.load(scale_ptr).to(tl.float32))
            y = tl.minimum(tl.maximum(y, -448.0), 448.0)
            tl.store(dst, _to_e4m3_bits(y), mask=mask)
        else:
            tl.store(dst, vals.to(cache_ptr.dtype.element_ty), mask=mask)


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale):
    fp8 = kv_cache_dtype != "auto"
    tokens = slot_mapping.shape[0]
    heads, head_size = key.shape[1], key.shape[2]
    block_size = key_cache.shape[1]
    shape, stride = tuple(key_cache.shape), tuple(key_cache.stride())
    ko, vo = key_cache.storage_offset(), value_cache.storage_offset()
    # the base pointer: a view at offset 0 of the joint storage
    base = key_cache if ko <= vo else value_cache
    lo = min(ko, vo)
    n = key_cache.numel()
    _swap[(triton.cdiv(n, 1024),)](base, ko - lo, vo - lo, n, *stride, shape[1], shape[2], shape[3], BLOCK=1024)
    key_cache.as_strided_(shape, stride, vo)
    value_cache.as_strided_(shape, stride, ko)
    if tokens == 0:
        return
    per_program = 8
    for src, cache, scale in ((key, key_cache, k_scale), (value, value_cache, v_scale)):
        _cache_kernel[(triton.cdiv(tokens, per_program),)](
            src, cache, slot_mapping, scale, tokens, block_size, heads, head_size,
            src.stride(0), src.stride(1), src.stride(2),
            cache.stride(0), cache.stride(1), cache.stride(2), cache.stride(3),
            FP8=fp8, TOKENS=per_program, BH=triton.next_power_of_2(heads), BD=triton.next_power_of_2(head_size))
