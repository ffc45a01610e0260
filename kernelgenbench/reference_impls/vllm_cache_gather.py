"""References for vLLM's paged-cache gather ops at v0.13.0 (csrc/cache_kernels.cu):
gather_and_maybe_dequant_cache, cp_gather_cache, cp_gather_indexer_k_quant_cache, with input generators.

- gather_and_maybe_dequant_cache: src_cache [num_blocks, block_size, 576] (the kernel is compiled for
  576-wide MLA entries only); for token t < num_tokens, b = token_to_seq[t] and position
  p = t - cu_seq_lens[b] (+ seq_starts[b] when given); dst[t] = src_cache[block_table[b, p // block_size],
  p % block_size], cast ("auto") or dequantized from fp8 bytes as float(fp8) * scale ("fp8", "fp8_e4m3",
  "fp8_e5m2").
- cp_gather_cache: the same gather as a byte copy (src and dst share a dtype), driven by batch: for
  b < batch_size and i < cu_seq_lens[b+1] - cu_seq_lens[b], dst[cu_seq_lens[b] + i] is the cache entry at
  position i (+ seq_starts[b]) of sequence b. Entries may have several trailing dims (flattened).
- cp_gather_indexer_k_quant_cache: kv_cache is uint8 [num_blocks, block_size, head_dim + 4 * head_dim /
  quant_block_size]; each block holds block_size * head_dim fp8 bytes (token-major) followed by the
  float32 scales of its tokens. Token t of sequence b (cu_seq_lens[b] <= t < cu_seq_lens[b+1]) gets its
  head_dim bytes in dst_k[t] and its scales in dst_scale[t] (bytes). The kernel copies the scale of every
  128-wide chunk of the head (one thread per 128 bytes), which is the whole scale row when
  quant_block_size is 128 (DeepSeek V3.2's indexer: head_dim 128, one scale per token).
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype

_FP8 = {"fp8": torch.float8_e4m3fn, "fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}


def _positions(block_table, seq_index, pos, block_size):
    blk = block_table.long()[seq_index, pos // block_size]
    return blk, pos % block_size


def gather_and_maybe_dequant_cache(src_cache, dst, block_table, cu_seq_lens, token_to_seq, num_tokens,
                                   kv_cache_dtype, scale, seq_starts=None):
    """Gather each token's cache entry into dst, dequantizing fp8 bytes with `scale`."""
    n = int(num_tokens)
    t = torch.arange(n, device=dst.device)
    b = token_to_seq[:n].long()
    pos = t - cu_seq_lens.long()[b]
    keep = t < cu_seq_lens.long()[b + 1]  # the kernel stops at tokens past their sequence's end
    if seq_starts is not None:
        pos = pos + seq_starts.long()[b]
    t, b, pos = t[keep], b[keep], pos[keep]
    blk, off = _positions(block_table, b, pos, src_cache.shape[1])
    rows = src_cache[blk, off].reshape(t.numel(), -1)
    if kv_cache_dtype == "auto":
        vals = rows.to(dst.dtype)
    elif kv_cache_dtype in _FP8:
        vals = (rows.contiguous().view(_FP8[kv_cache_dtype]).float() * scale.reshape(-1)[0].float()).to(dst.dtype)
    else:
        raise ValueError(f"Unsupported kv_cache_dtype: {kv_cache_dtype}")
    dst[t] = vals.reshape(t.numel(), *dst.shape[1:])
    return None


def cp_gather_cache(src_cache, dst, block_table, cu_seq_lens, batch_size, seq_starts=None):
    """Copy every sequence's cache entries (from seq_starts[b] on, when given) into dst rows."""
    cu = cu_seq_lens.long()
    lens = cu[1:int(batch_size) + 1] - cu[:int(batch_size)]
    b = torch.repeat_interleave(torch.arange(int(batch_size), device=cu.device), lens)
    row = torch.arange(int(lens.sum()), device=cu.device) + cu[0]
    pos = row - cu[b]
    if seq_starts is not None:
        pos = pos + seq_starts.long()[b]
    blk, off = _positions(block_table, b, pos, src_cache.shape[1])
    dst[row] = src_cache[blk, off].reshape(row.numel(), *dst.shape[1:])
    return None


def cp_gather_indexer_k_quant_cache(kv_cache, dst_k, dst_scale, block_table, cu_seq_lens):
    """Gather each token's fp8 key bytes and float32 scale bytes out of the indexer's packed cache."""
    num_tokens, head_dim = dst_k.shape
    quant_block = head_dim * 4 // dst_scale.shape[1]
    block_size = kv_cache.shape[1]
    raw = kv_cache.view(torch.uint8).reshape(kv_cache.shape[0], -1)  # one row of bytes per block
    cu = cu_seq_lens.long()
    t = torch.arange(num_tokens, device=raw.device)
    b = torch.searchsorted(cu, t, right=True) - 1
    i = t - cu[b]
    blk, off = _positions(block_table, b, i, block_size)
    cols = off[:, None] * head_dim + torch.arange(head_dim, device=raw.device)[None, :]
    dst_k.view(torch.uint8)[:] = raw[blk[:, None], cols]
    scale_src = raw[:, block_size * head_dim:].contiguous().view(torch.float32)  # [blocks, block_size * n]
    scale_dst = dst_scale.view(torch.uint8).reshape(num_tokens, -1).view(torch.float32).reshape(-1)
    for head in range(0, head_dim, 128):  # one scale per 128-byte chunk, as the kernel's thread 0 copies
        src_idx = (off * head_dim + head) * 4 // quant_block // 4
        dst_idx = (t * dst_k.stride(0) + head) // quant_block
        scale_dst[dst_idx] = scale_src[blk, src_idx]
    dst_scale.view(torch.uint8).copy_(scale_dst.view(torch.uint8).reshape(dst_scale.shape))
    return None


# ---------------------------------------------------------------------------------------------- inputs


def _seq_layout(seq_lens: list[int], block_size: int, num_blocks: int, starts: list[int], gen):
    """A block table of distinct blocks per sequence (covering start + len positions) and cu_seq_lens."""
    need = [(s + st + block_size - 1) // block_size for s, st in zip(seq_lens, starts, strict=True)]
    width = max(max(need), 1)
    if sum(need) > num_blocks:
        raise ValueError(f"{sum(need)} blocks are needed but the cache has {num_blocks}")
    perm = torch.randperm(num_blocks, generator=gen)
    table = torch.randint(0, num_blocks, (len(seq_lens), width), generator=gen, dtype=torch.int64)
    used = 0
    for i, n in enumerate(need):
        table[i, :n] = perm[used:used + n]
        used += n
    cu = torch.zeros(len(seq_lens) + 1, dtype=torch.int64)
    cu[1:] = torch.tensor(seq_lens, dtype=torch.int64).cumsum(0)
    return table.to(torch.int32), cu.to(torch.int32)


def _mla_cache(shape, kv_cache_dtype: str, dtype: torch.dtype, gen) -> torch.Tensor:
    vals = torch.randn(shape, generator=gen)
    if kv_cache_dtype == "auto":
        return vals.to(dtype)
    return vals.to(_FP8[kv_cache_dtype]).view(torch.uint8)


def _seq_lens(params: dict, gen) -> list[int]:
    batch, max_len = int(params["batch_size"]), int(params["max_seq_len"])
    low = int(params.get("min_seq_len", max_len))
    return torch.randint(low, max_len + 1, (batch,), generator=gen).tolist()


def _starts(params: dict, batch: int, gen) -> list[int]:
    if not params.get("with_seq_starts", False):
        return [0] * batch
    return torch.randint(0, 2 * int(params.get("block_size", 16)), (batch,), generator=gen).tolist()


def make_gather_and_maybe_dequant_cache_inputs(params: dict, *, seed: int, device: str) -> dict:
    """An MLA cache (576-wide entries) with sequences in distinct blocks, cu_seq_lens, token_to_seq, NaN dst."""
    gen = torch.Generator().manual_seed(seed)
    block_size = int(params["block_size"])
    entry = int(params.get("kv_lora_rank", 512)) + int(params.get("qk_rope_head_dim", 64))
    dtype, kvd = _dtype(params["dtype"]), params.get("kv_cache_dtype", "auto")
    lens = _seq_lens(params, gen)
    starts = _starts(params, len(lens), gen)
    need = sum((s + st + block_size - 1) // block_size for s, st in zip(lens, starts, strict=True))
    num_blocks = int(params.get("num_blocks") or need + 4)
    table, cu = _seq_layout(lens, block_size, num_blocks, starts, gen)
    total = int(cu[-1])
    src = _mla_cache((num_blocks, block_size, entry), kvd, dtype, gen)
    token_to_seq = torch.repeat_interleave(torch.arange(len(lens), dtype=torch.int32), torch.tensor(lens))
    out = dict(src_cache=src, dst=torch.full((total, entry), float("nan"), dtype=dtype), block_table=table,
               cu_seq_lens=cu, token_to_seq=token_to_seq, num_tokens=total, kv_cache_dtype=kvd,
               scale=torch.tensor([float(params.get("scale", 0.1))]),
               seq_starts=torch.tensor(starts, dtype=torch.int32) if params.get("with_seq_starts") else None)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in out.items()}


def make_cp_gather_cache_inputs(params: dict, *, seed: int, device: str) -> dict:
    """A cache, sequences (some empty) in distinct blocks, cu_seq_lens and a dst pre-filled with garbage."""
    gen = torch.Generator().manual_seed(seed)
    block_size = int(params["block_size"])
    entry = int(params.get("kv_lora_rank", 512)) + int(params.get("qk_rope_head_dim", 64))
    dtype = _dtype(params["dtype"])
    lens = _seq_lens(dict(params, min_seq_len=params.get("min_seq_len", 0)), gen)
    starts = _starts(params, len(lens), gen)
    need = sum((s + st + block_size - 1) // block_size for s, st in zip(lens, starts, strict=True))
    num_blocks = int(params.get("num_blocks") or need + 4)
    table, cu = _seq_layout(lens, block_size, num_blocks, starts, gen)
    total = int(cu[-1])
    src = torch.randn(num_blocks, block_size, entry, generator=gen).to(dtype)
    out = dict(src_cache=src, dst=torch.randn(total, entry, generator=gen).to(dtype), block_table=table,
               cu_seq_lens=cu, batch_size=len(lens),
               seq_starts=torch.tensor(starts, dtype=torch.int32) if params.get("with_seq_starts") else None)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in out.items()}


def make_cp_gather_indexer_k_quant_cache_inputs(params: dict, *, seed: int, device: str) -> dict:
    """The DeepSeek V3.2 indexer cache (fp8 keys + float32 scales per block), sequences in distinct
    blocks, and fp8/uint8 destinations pre-filled with garbage."""
    gen = torch.Generator().manual_seed(seed)
    head_dim, qb = int(params.get("head_dim", 128)), int(params.get("quant_block_size", 128))
    block_size = int(params.get("block_size", 64))
    lens = torch.randint(1, int(params["max_seq_len"]) + 1, (int(params["batch_size"]),), generator=gen).tolist()
    need = sum((s + block_size - 1) // block_size for s in lens)
    num_blocks = int(params.get("num_blocks") or need + 4)
    table, cu = _seq_layout(lens, block_size, num_blocks, [0] * len(lens), gen)
    n_scales = head_dim // qb
    k = torch.randn(num_blocks, block_size * head_dim, generator=gen)
    scales = torch.rand(num_blocks, block_size * n_scales, generator=gen) + 0.01
    blocks = torch.cat([k.to(torch.float8_e4m3fn).view(torch.uint8), scales.view(torch.uint8)], dim=1)
    kv_cache = blocks.reshape(num_blocks, block_size, head_dim + 4 * n_scales)
    total = int(cu[-1])
    dst_k = torch.randn(total, head_dim, generator=gen).to(torch.float8_e4m3fn)
    dst_scale = torch.randint(0, 256, (total, 4 * n_scales), generator=gen, dtype=torch.uint8)
    out = dict(kv_cache=kv_cache, dst_k=dst_k, dst_scale=dst_scale, block_table=table, cu_seq_lens=cu)
    return {k: v.to(device) for k, v in out.items()}
