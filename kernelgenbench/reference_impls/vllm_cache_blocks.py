"""References for vLLM's block copy ops at v0.13.0 (csrc/cache_kernels.cu): swap_blocks, copy_blocks,
copy_blocks_mla, with their input generators.

- swap_blocks(src, dst, block_mapping): for each row (s, d) of the int64 [n, 2] mapping, which must live on
  the CPU, block d of dst becomes block s of src (a byte copy of src.stride(0) elements); src and dst may be
  on different devices (device<->host swaps).
- copy_blocks(key_caches, value_caches, block_mapping): for every layer, block d of each key and value cache
  becomes block s of the same cache; the mapping is an int64 [n, 2] tensor on the caches' device.
- copy_blocks_mla(kv_caches, block_mapping): the same over one joint cache per layer.
In vLLM's tests (and in vLLM itself) no destination block is also a source, so the copies commute; the
generators keep that property, since the kernels run all pairs in parallel.
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype


def _pairs(block_mapping: torch.Tensor, device) -> tuple[torch.Tensor, torch.Tensor]:
    m = block_mapping.reshape(-1, 2).long().to(device)
    return m[:, 0], m[:, 1]


def swap_blocks(src, dst, block_mapping):
    """Copy block mapping[i, 0] of src into block mapping[i, 1] of dst."""
    s, d = _pairs(block_mapping, src.device)
    dst[d.to(dst.device)] = src[s].to(dst.device)
    return None


def copy_blocks(key_caches, value_caches, block_mapping):
    """Within every layer's key and value cache, copy block mapping[i, 0] onto block mapping[i, 1]."""
    for cache in list(key_caches) + list(value_caches):
        s, d = _pairs(block_mapping, cache.device)
        cache[d] = cache[s].clone()
    return None


def copy_blocks_mla(kv_caches, block_mapping):
    """Within every layer's joint MLA cache, copy block mapping[i, 0] onto block mapping[i, 1]."""
    for cache in kv_caches:
        s, d = _pairs(block_mapping, cache.device)
        cache[d] = cache[s].clone()
    return None


# ---------------------------------------------------------------------------------------------- inputs


def _cache(shape, kv_cache_dtype: str, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    if kv_cache_dtype == "auto":
        return torch.randn(shape, generator=gen).to(dtype)
    # fp8 caches are uint8; any byte pattern must be copied verbatim, NaN codes included
    return torch.randint(0, 256, shape, generator=gen, dtype=torch.uint8)


def _split(num_blocks: int, n_src: int, n_dst: int, gen: torch.Generator):
    if n_src + n_dst > num_blocks:
        raise ValueError(f"{n_src} source and {n_dst} destination blocks do not fit in {num_blocks} blocks")
    perm = torch.randperm(num_blocks, generator=gen)
    return perm[:n_src], perm[n_src:n_src + n_dst]


def _fanout_mapping(num_blocks: int, num_mappings: int, gen: torch.Generator) -> torch.Tensor:
    """Each source block copied to two distinct destination blocks, as in vLLM's test_copy_blocks."""
    src, dst = _split(num_blocks, num_mappings, 2 * num_mappings, gen)
    return torch.stack([src.repeat_interleave(2), dst], dim=1).long()


def _kv_shapes(params: dict, num_blocks: int):
    heads, head_size, block_size = int(params["num_heads"]), int(params["head_size"]), int(params["block_size"])
    elem = 1 if params.get("kv_cache_dtype", "auto") != "auto" else _dtype(params["dtype"]).itemsize
    x = 16 // elem
    return (num_blocks, heads, head_size // x, block_size, x), (num_blocks, heads, head_size, block_size)


def make_copy_blocks_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Per-layer paged key/value caches and a fan-out mapping (each source to two fresh blocks)."""
    gen = torch.Generator().manual_seed(seed)
    num_mappings = int(params.get("num_mappings", 8))
    num_blocks = int(params.get("num_blocks") or 3 * num_mappings + 5)
    layers = int(params.get("num_layers", 1))
    kvd, dtype = params.get("kv_cache_dtype", "auto"), _dtype(params["dtype"])
    kshape, vshape = _kv_shapes(params, num_blocks)
    keys = [_cache(kshape, kvd, dtype, gen).to(device) for _ in range(layers)]
    values = [_cache(vshape, kvd, dtype, gen).to(device) for _ in range(layers)]
    mapping = _fanout_mapping(num_blocks, num_mappings, gen).to(device)
    return dict(key_caches=keys, value_caches=values, block_mapping=mapping)


def make_copy_blocks_mla_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Per-layer joint MLA caches [num_blocks, block_size, kv_lora_rank + rope dim] and a fan-out mapping."""
    gen = torch.Generator().manual_seed(seed)
    num_blocks = int(params.get("num_blocks", 8))
    num_mappings = int(params.get("num_mappings", min(2, num_blocks // 2)))
    entry = int(params.get("kv_lora_rank", 512)) + int(params.get("qk_rope_head_dim", 64))
    kvd, dtype = params.get("kv_cache_dtype", "auto"), _dtype(params["dtype"])
    shape = (num_blocks, int(params["block_size"]), entry)
    caches = [_cache(shape, kvd, dtype, gen).to(device) for _ in range(int(params.get("num_layers", 1)))]
    mapping = _fanout_mapping(num_blocks, num_mappings, gen).to(device)
    return dict(kv_caches=caches, block_mapping=mapping)


def make_swap_blocks_inputs(params: dict, *, seed: int, device: str) -> dict:
    """A source and a destination cache (paged key layout, or an MLA cache when kv_lora_rank is given) on the
    devices `direction` names, and a CPU mapping of distinct blocks."""
    gen = torch.Generator().manual_seed(seed)
    num_mappings = int(params.get("num_mappings", 8))
    num_blocks = int(params.get("num_blocks") or 2 * num_mappings + 5)
    kvd, dtype = params.get("kv_cache_dtype", "auto"), _dtype(params["dtype"])
    if "kv_lora_rank" in params:
        shape = (num_blocks, int(params["block_size"]),
                 int(params["kv_lora_rank"]) + int(params.get("qk_rope_head_dim", 64)))
    else:
        shape = _kv_shapes(params, num_blocks)[0]
    direction = params.get("direction", ["cuda", "cuda"])
    src_dev, dst_dev = (device if d == "cuda" else "cpu" for d in direction)
    src_blocks, dst_blocks = _split(num_blocks, num_mappings, num_mappings, gen)
    if src_dev != dst_dev:  # across devices the same block number may appear on both sides
        dst_blocks = torch.randperm(num_blocks, generator=gen)[:num_mappings]
    src = _cache(shape, kvd, dtype, gen).to(src_dev)
    dst = _cache(shape, kvd, dtype, gen).to(dst_dev)
    mapping = torch.stack([src_blocks, dst_blocks], dim=1).long()  # stays on the CPU, as the op requires
    return dict(src=src, dst=dst, block_mapping=mapping)


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)


def swap_blocks_v033(src, dst, block_size_in_bytes, block_mapping):
    """Copy block_size_in_bytes bytes from byte offset mapping[i, 0] * block_size_in_bytes of src to offset
    mapping[i, 1] * block_size_in_bytes of dst (vLLM 0.33.0 on passes the block's size in bytes; with the
    size of one block of the first dim this is 0.13.0's swap_blocks)."""
    n = int(block_size_in_bytes)
    s, d = _pairs(block_mapping, "cpu")
    sb = src.reshape(-1).view(torch.uint8)
    db = dst.reshape(-1).view(torch.uint8)
    span = torch.arange(n)
    src_idx = (s[:, None] * n + span).reshape(-1).to(sb.device)
    dst_idx = (d[:, None] * n + span).reshape(-1).to(db.device)
    db[dst_idx] = sb[src_idx].to(db.device)
    return None


def make_swap_blocks_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_swap_blocks_inputs and block_size_in_bytes: the bytes of one block of the first dim."""
    x = make_swap_blocks_inputs(params, seed=seed, device=device)
    src = x["src"]
    return {"src": src, "dst": x["dst"], "block_size_in_bytes": src[0].numel() * src.element_size(),
            "block_mapping": x["block_mapping"]}
