"""References for vLLM's KV-cache write ops at v0.13.0 (csrc/cache_kernels.cu): reshape_and_cache,
reshape_and_cache_flash, concat_and_cache_mla and convert_fp8, with their input generators.

Formats, from csrc/cache_kernels.cu and csrc/quantization/w8a8/fp8/nvidia/quant_utils.cuh:
- kv_cache_dtype "auto": the cache has the key's dtype and receives a plain cast.
- "fp8" / "fp8_e4m3" / "fp8_e5m2": the cache is uint8 holding fp8 bytes. Storing is
  fp8(float(x) / scale) with round-to-nearest-even and saturation to the largest finite value
  (__NV_SATFINITE); loading is float(fp8) * scale rounded to the destination dtype. The scale is the first
  element of a float32 tensor (k_scale, v_scale, scale).
- reshape_and_cache: key_cache [num_blocks, num_heads, head_size / x, block_size, x] with
  x = 16 / cache element size; value_cache [num_blocks, num_heads, head_size, block_size].
- reshape_and_cache_flash: caches [num_blocks, block_size, num_heads, head_size] (NHD), possibly a strided
  view of an HND allocation [num_blocks, num_heads, block_size, head_size]; only strides differ.
- concat_and_cache_mla: kv_cache [num_blocks, block_size, kv_lora_rank + pe_dim] holds kv_c then k_pe.
  "fp8_ds_mla" (kv_lora_rank 512, pe_dim 64, 16-bit inputs) stores 656 bytes per token: 512 fp8 e4m3 bytes
  in 4 tiles of 128, each tile scaled by max(|tile|) / 448 (at least FLT_MIN), then the 4 tile scales as
  float32, then k_pe's 64 16-bit values verbatim.
- Token t is written at slot slot_mapping[t] (block slot // block_size, offset slot % block_size) for the
  first slot_mapping.size(0) tokens; slots < 0 are padding and skipped.
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype

_FP8 = {"fp8": torch.float8_e4m3fn, "fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}
_FLT_MIN = 1.1754943508222875e-38


def _scale(scale: torch.Tensor | float) -> torch.Tensor | float:
    return scale.reshape(-1)[0].float() if isinstance(scale, torch.Tensor) else float(scale)


def fp8_quantize(x: torch.Tensor, scale: torch.Tensor | float, fmt: str) -> torch.Tensor:
    """fp8 bytes (uint8) of x / scale, rounded to nearest even and saturated to the finite range."""
    dt = _FP8[fmt]
    fmax = torch.finfo(dt).max
    y = (x.float() / _scale(scale)).clamp(-fmax, fmax)  # clamp keeps NaN, as SATFINITE does
    return y.to(dt).view(torch.uint8)


def fp8_dequantize(b: torch.Tensor, scale: torch.Tensor | float, fmt: str, dtype: torch.dtype) -> torch.Tensor:
    """float(fp8 bytes) * scale, rounded to dtype."""
    return (b.contiguous().view(_FP8[fmt]).float() * _scale(scale)).to(dtype)


def _store(x: torch.Tensor, kv_cache_dtype: str, scale, cache_dtype: torch.dtype) -> torch.Tensor:
    if kv_cache_dtype == "auto":
        return x.to(cache_dtype)
    if kv_cache_dtype not in _FP8:
        raise ValueError(f"Unsupported kv_cache_dtype: {kv_cache_dtype}")
    return fp8_quantize(x, scale, kv_cache_dtype)


def _slots(slot_mapping: torch.Tensor, block_size: int):
    slots = slot_mapping.long()
    tok = torch.nonzero(slots >= 0).flatten()
    s = slots[tok]
    return tok, s // block_size, s % block_size


def reshape_and_cache(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale,
                      interleaved_v=False):
    """Write key/value rows into the paged (x-split) key cache and the value cache at their slots.

    interleaved_v (schema from vLLM 0.33.0; False is the 0.13.0 behaviour): each head of a value block is
    laid out [block_size / x, head_size, x] in the value cache's memory instead of [head_size, block_size].
    """
    block_size, x = key_cache.shape[3], key_cache.shape[4]
    tok, blk, off = _slots(slot_mapping, block_size)
    n, heads, head_size = tok.numel(), key.shape[1], key.shape[2]
    k = _store(key[tok], kv_cache_dtype, k_scale, key_cache.dtype)
    v = _store(value[tok], kv_cache_dtype, v_scale, value_cache.dtype)
    key_cache[blk, :, :, off, :] = k.reshape(n, heads, head_size // x, x)
    if interleaved_v:
        inter = value_cache.view(value_cache.shape[0], heads, block_size // x, head_size, x)
        inter[blk, :, off // x, :, off % x] = v
    else:
        value_cache[blk, :, :, off] = v
    return None


def reshape_and_cache_flash(key, value, key_cache, value_cache, slot_mapping, kv_cache_dtype, k_scale, v_scale):
    """Write key/value rows into [num_blocks, block_size, heads, head_size] caches at their slots."""
    tok, blk, off = _slots(slot_mapping, key_cache.shape[1])
    key_cache[blk, off] = _store(key[tok], kv_cache_dtype, k_scale, key_cache.dtype)
    value_cache[blk, off] = _store(value[tok], kv_cache_dtype, v_scale, value_cache.dtype)
    return None


def _ds_mla_entries(kv_c: torch.Tensor, k_pe: torch.Tensor) -> torch.Tensor:
    n = kv_c.shape[0]
    tiles = kv_c.float().reshape(n, 4, 128)
    tile_scale = (tiles.abs().amax(-1) / 448.0).clamp_min(_FLT_MIN)
    q = (tiles / tile_scale[..., None]).clamp(-448.0, 448.0).to(torch.float8_e4m3fn).view(torch.uint8)
    return torch.cat(
        [q.reshape(n, 512), tile_scale.contiguous().view(torch.uint8).reshape(n, 16),
         k_pe.contiguous().view(torch.uint8).reshape(n, -1)],
        dim=1,
    )


def concat_and_cache_mla(kv_c, k_pe, kv_cache, slot_mapping, kv_cache_dtype, scale, skip_scale=False):
    """Write [kv_c | k_pe] per token into the MLA cache at its slot (fp8 or fp8_ds_mla when asked).

    skip_scale (schema from vLLM 0.33.0; False is the 0.13.0 behaviour): an fp8 cache stores the values
    converted with scale 1 instead of `scale` (the fp8_ds_mla layout keeps its own per-tile scales).
    """
    if skip_scale and kv_cache_dtype != "fp8_ds_mla":
        scale = torch.ones_like(scale)
    tok, blk, off = _slots(slot_mapping, kv_cache.shape[1])
    if kv_cache_dtype == "fp8_ds_mla":
        kv_cache.view(torch.uint8)[blk, off] = _ds_mla_entries(kv_c[tok], k_pe[tok])
        return None
    entry = torch.cat([kv_c[tok], k_pe[tok]], dim=1)
    kv_cache[blk, off] = _store(entry, kv_cache_dtype, scale, kv_cache.dtype)
    return None


def convert_fp8(dst_cache, src_cache, scale, kv_cache_dtype):
    """Quantize a float cache to fp8 e4m3 bytes, or dequantize fp8 bytes to dst's dtype, with `scale`."""
    if kv_cache_dtype not in ("fp8", "fp8_e4m3"):
        # 0.13.0 rejects other strings; "auto" reaches an unreachable branch on the device.
        raise ValueError(f"Unsupported data type: {kv_cache_dtype}")
    if src_cache.dtype in (torch.float32, torch.float16, torch.bfloat16):
        dst_cache.view(torch.uint8).copy_(fp8_quantize(src_cache, scale, "fp8"))
    else:
        dst_cache.copy_(fp8_dequantize(src_cache, scale, "fp8", dst_cache.dtype))
    return None


# ---------------------------------------------------------------------------------------------- inputs


def _cache_dtype(kv_cache_dtype: str, dtype: torch.dtype) -> torch.dtype:
    return dtype if kv_cache_dtype == "auto" else torch.uint8


def _fill_cache(shape, kv_cache_dtype: str, dtype: torch.dtype, bound: float, gen: torch.Generator):
    """Old cache contents: uniform values (as fp8 bytes for fp8 caches), like vLLM's test caches."""
    vals = (torch.rand(shape, generator=gen) * 2 - 1) * bound
    if kv_cache_dtype == "auto":
        return vals.to(dtype)
    return fp8_quantize(vals, 1.0, "fp8" if kv_cache_dtype == "fp8_ds_mla" else kv_cache_dtype)


def _slot_mapping(num_tokens: int, num_slots: int, num_pad: int, gen: torch.Generator) -> torch.Tensor:
    """Distinct random slots, with the last num_pad tokens marked as padding (-1)."""
    if num_tokens > num_slots:
        raise ValueError(f"{num_tokens} tokens do not fit in {num_slots} cache slots")
    slots = torch.randperm(num_slots, generator=gen)[:num_tokens].long()
    if num_pad:
        slots[num_tokens - num_pad:] = -1
    return slots


def _default_blocks(params: dict, num_tokens: int, block_size: int) -> int:
    # Room for every token plus spare blocks that no token may touch.
    return int(params.get("num_blocks") or (num_tokens + block_size - 1) // block_size * 2 + 4)


def _pad_count(params: dict, num_tokens: int) -> int:
    return int(params.get("num_pad", min(num_tokens - 1, max(1, num_tokens // 16)) if num_tokens > 1 else 0))


def _kv_rows(num_tokens, num_heads, head_size, dtype, gen):
    # key and value are strided views of one qkv tensor, as in vLLM (stride(0) = 3 * heads * head_size).
    qkv = torch.randn(num_tokens, 3, num_heads, head_size, generator=gen).to(dtype)
    return qkv[:, 1], qkv[:, 2]


def _scales(key, value, kv_cache_dtype):
    if kv_cache_dtype == "auto":
        return torch.tensor(1.0), torch.tensor(1.0)
    return (key.float().amax() / 64.0).reshape(()), (value.float().amax() / 64.0).reshape(())


def _to(d: dict, device: str) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, torch.Tensor):
            out[k] = v.to(device)
        elif isinstance(v, list) and v and isinstance(v[0], torch.Tensor):
            out[k] = [t.to(device) for t in v]
        else:
            out[k] = v
    return out


def make_reshape_and_cache_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Strided key/value rows, distinct slots with -1 padding, and x-split caches holding old values."""
    gen = torch.Generator().manual_seed(seed)
    num_tokens, num_heads = int(params["num_tokens"]), int(params["num_heads"])
    head_size, block_size = int(params["head_size"]), int(params["block_size"])
    dtype, kvd = _dtype(params["dtype"]), params.get("kv_cache_dtype", "auto")
    num_blocks = _default_blocks(params, num_tokens, block_size)
    cdt = _cache_dtype(kvd, dtype)
    x = 16 // torch.empty((), dtype=cdt).element_size()
    key, value = _kv_rows(num_tokens, num_heads, head_size, dtype, gen)
    bound = head_size**-0.5
    key_cache = _fill_cache((num_blocks, num_heads, head_size // x, block_size, x), kvd, dtype, bound, gen)
    value_cache = _fill_cache((num_blocks, num_heads, head_size, block_size), kvd, dtype, bound, gen)
    slot_mapping = _slot_mapping(num_tokens, num_blocks * block_size, _pad_count(params, num_tokens), gen)
    k_scale, v_scale = _scales(key, value, kvd)
    return _to(dict(key=key, value=value, key_cache=key_cache, value_cache=value_cache,
                    slot_mapping=slot_mapping, kv_cache_dtype=kvd, k_scale=k_scale, v_scale=v_scale), device)


def make_reshape_and_cache_flash_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Like reshape_and_cache's, with NHD caches that are views of one joint K/V allocation (NHD or HND)."""
    gen = torch.Generator().manual_seed(seed)
    num_tokens, num_heads = int(params["num_tokens"]), int(params["num_heads"])
    head_size, block_size = int(params["head_size"]), int(params["block_size"])
    dtype, kvd = _dtype(params["dtype"]), params.get("kv_cache_dtype", "auto")
    layout = params.get("kv_cache_layout", "NHD")
    num_blocks = _default_blocks(params, num_tokens, block_size)
    key, value = _kv_rows(num_tokens, num_heads, head_size, dtype, gen)
    order = (0, 1, 2, 3, 4) if layout == "NHD" else (0, 1, 3, 2, 4)
    logical = (num_blocks, 2, block_size, num_heads, head_size)
    alloc = _fill_cache(tuple(logical[i] for i in order), kvd, dtype, head_size**-0.5, gen)
    slot_mapping = _slot_mapping(num_tokens, num_blocks * block_size, _pad_count(params, num_tokens), gen)
    k_scale, v_scale = _scales(key, value, kvd)
    out = _to(dict(key=key, value=value, slot_mapping=slot_mapping, kv_cache_dtype=kvd,
                   k_scale=k_scale, v_scale=v_scale), device)
    joint = alloc.to(device).permute(*order)  # the permutations used are their own inverses
    out["key_cache"], out["value_cache"] = joint[:, 0], joint[:, 1]
    return out


def make_concat_and_cache_mla_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Latent and rope rows, distinct slots with -1 padding, an MLA cache with old values, a scale."""
    gen = torch.Generator().manual_seed(seed)
    num_tokens, block_size = int(params["num_tokens"]), int(params["block_size"])
    rank, pe = int(params.get("kv_lora_rank", 512)), int(params.get("qk_rope_head_dim", 64))
    dtype, kvd = _dtype(params["dtype"]), params.get("kv_cache_dtype", "auto")
    num_blocks = int(params.get("num_blocks") or _default_blocks(params, num_tokens, block_size))
    kv_c = torch.randn(num_tokens, rank, generator=gen).to(dtype)
    k_pe = torch.randn(num_tokens, pe, generator=gen).to(dtype)
    if kvd == "fp8_ds_mla":
        if (rank, pe, dtype.itemsize) != (512, 64, 2):
            raise ValueError("fp8_ds_mla needs kv_lora_rank 512, qk_rope_head_dim 64 and a 16-bit dtype")
        kv_cache = torch.randint(0, 256, (num_blocks, block_size, 656), generator=gen, dtype=torch.uint8)
    else:
        kv_cache = _fill_cache((num_blocks, block_size, rank + pe), kvd, dtype, 1.0, gen)
    slot_mapping = _slot_mapping(num_tokens, num_blocks * block_size, _pad_count(params, num_tokens), gen)
    scale = torch.tensor(float(params.get("scale", 0.1)), dtype=torch.float32)
    return _to(dict(kv_c=kv_c, k_pe=k_pe, kv_cache=kv_cache, slot_mapping=slot_mapping,
                    kv_cache_dtype=kvd, scale=scale), device)


def make_convert_fp8_inputs(params: dict, *, seed: int, device: str) -> dict:
    """A [num_blocks, heads, head_size, block_size] cache: float values to quantize (direction 'quantize')
    or fp8 bytes to dequantize into `dtype` (direction 'dequantize')."""
    gen = torch.Generator().manual_seed(seed)
    shape = (int(params.get("num_blocks", 64)), int(params["num_heads"]), int(params["head_size"]),
             int(params["block_size"]))
    dtype = _dtype(params["dtype"])
    scale = float(params.get("scale", 1.0))
    vals = (torch.rand(shape, generator=gen) * 448.0 - 224.0).to(dtype)
    if params.get("direction", "quantize") == "quantize":
        src, dst = vals, torch.full(shape, 0xFF, dtype=torch.uint8)
    else:
        src, dst = fp8_quantize(vals, scale, "fp8"), torch.full(shape, float("nan"), dtype=dtype)
    return _to(dict(dst_cache=dst, src_cache=src, scale=scale,
                    kv_cache_dtype=params.get("kv_cache_dtype", "fp8")), device)


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)


def make_reshape_and_cache_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_reshape_and_cache_inputs and `interleaved_v` (workload param, default False)."""
    x = make_reshape_and_cache_inputs(params, seed=seed, device=device)
    return {**x, "interleaved_v": bool(params.get("interleaved_v", False))}


def make_concat_and_cache_mla_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_concat_and_cache_mla_inputs and `skip_scale` (workload param, default False)."""
    x = make_concat_and_cache_mla_inputs(params, seed=seed, device=device)
    return {**x, "skip_scale": bool(params.get("skip_scale", False))}
