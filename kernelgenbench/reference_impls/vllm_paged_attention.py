"""References for vLLM's PagedAttention decode kernels at v0.13.0 (csrc/attention/attention_kernels.cuh,
paged_attention_v1.cu, paged_attention_v2.cu), with an input generator.

One query token per sequence attends over the sequence's seq_lens[s] cached tokens:
- key_cache [num_blocks, num_kv_heads, head_size / x, block_size, x] with x = 16 / cache element size,
  value_cache [num_blocks, num_kv_heads, head_size, block_size]; token j of sequence s lives in block
  block_tables[s, j // block_size] at offset j % block_size. Query head h reads kv head
  h // (num_heads / num_kv_heads).
- kv_cache_dtype "auto" reads the cache as the query dtype; "fp8"/"fp8_e4m3"/"fp8_e5m2" read uint8 fp8
  bytes as float(fp8) * k_scale (v_scale), rounded to the query dtype.
- logit = scale * q.k (float32) + alibi_slopes[h] * (j - seq_len + 1) when slopes are given.
- Block-sparse (blocksparse_vert_stride > 1): with bs = blocksparse_block_size, key block
  kb = (j // block_size) * block_size // bs is kept when (kb + off) % vert_stride == 0 or
  kb > (seq_len - 1) // bs - blocksparse_local_blocks, where off = (tp_rank * num_heads + h) * step + 1 for
  blocksparse_head_sliding_step = step >= 0 and (tp_rank * num_kv_heads + kv_h) * (-step) + 1 otherwise.
- Softmax in float32 over the kept tokens: m = max logit, e = exp(logit - m), p = e / (sum(e) + 1e-6);
  p is rounded to the query dtype before p.v is accumulated in float32; the output is rounded to dtype.
- v2 splits the tokens into partitions of 512 and writes, for each partition k < ceil(seq_len / 512):
  max_logits[s, h, k] = m_k, exp_sums[s, h, k] = sum(e_k), tmp_out[s, h, k] = that partition's
  normalized output (in dtype); later partitions are left untouched. The output is tmp_out[s, h, 0] when
  there is one partition, else sum_k tmp_out_k * w_k / (sum_k w_k + 1e-6) with w_k = exp_sums_k *
  exp(m_k - max_k m_k). A partition with no kept token has m = -FLT_MAX, sum(e) = its token count, output 0.
"""

from __future__ import annotations

import math

import torch

from kernelgenbench.reference_impls.shared import _dtype

_FP8 = {"fp8": torch.float8_e4m3fn, "fp8_e4m3": torch.float8_e4m3fn, "fp8_e5m2": torch.float8_e5m2}
_FLT_MAX = 3.4028234663852886e38
PARTITION_SIZE = 512


def _load(cache: torch.Tensor, kv_cache_dtype: str, scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    if kv_cache_dtype == "auto":
        return cache.float()
    if kv_cache_dtype not in _FP8:
        raise ValueError(f"Unsupported kv_cache_dtype: {kv_cache_dtype}")
    return (cache.contiguous().view(_FP8[kv_cache_dtype]).float() * scale.reshape(-1)[0].float()).to(dtype).float()


def _partials(query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens, alibi_slopes,
              kv_cache_dtype, k_scale, v_scale, tp_rank, bs_local, bs_vert, bs_block, bs_step, part):
    """Per sequence, the list of its partitions' (max logit [H], exp sum [H], normalized output [H, d])."""
    seqs, heads, d = query.shape
    block_size = value_cache.shape[3]
    group = heads // num_kv_heads
    h = torch.arange(heads, device=query.device)
    result = []
    for s in range(seqs):
        n = int(seq_lens[s])
        blocks = block_tables[s, : math.ceil(n / block_size)].long().to(key_cache.device)
        k = _load(key_cache[blocks], kv_cache_dtype, k_scale, query.dtype)  # [nb, Hkv, d/x, bs, x]
        k = k.permute(1, 0, 3, 2, 4).reshape(num_kv_heads, -1, d)[:, :n]
        v = _load(value_cache[blocks], kv_cache_dtype, v_scale, query.dtype)  # [nb, Hkv, d, bs]
        v = v.permute(1, 0, 3, 2).reshape(num_kv_heads, -1, d)[:, :n]
        q = query[s].float().reshape(num_kv_heads, group, d)
        logits = (scale * torch.einsum("ngd,nld->ngl", q, k)).reshape(heads, n)
        pos = torch.arange(n, device=query.device)
        if alibi_slopes is not None:
            logits = logits + alibi_slopes.float().reshape(heads, 1) * (pos - n + 1)
        keep = torch.ones(heads, n, dtype=torch.bool, device=query.device)
        if bs_vert > 1:
            off = (tp_rank * heads + h) * bs_step + 1 if bs_step >= 0 else \
                (tp_rank * num_kv_heads + h // group) * (-bs_step) + 1
            kb = (pos // block_size) * block_size // bs_block
            keep = ((kb[None, :] + off[:, None]) % bs_vert == 0) | (kb > (n - 1) // bs_block - bs_local)[None, :]
        parts = []
        for a in range(0, n, part):
            lg, kp = logits[:, a:a + part], keep[:, a:a + part]
            m = torch.where(kp, lg, -math.inf).amax(-1)
            m = torch.where(torch.isinf(m), -_FLT_MAX, m)
            e = torch.exp(torch.where(kp, lg, -_FLT_MAX) - m[:, None])
            total = e.sum(-1)
            p = (e * (1.0 / (total + 1e-6))[:, None]).to(query.dtype).float()
            p = torch.where(kp, p, 0.0)  # skipped blocks never reach the value loop
            o = torch.einsum("ngl,nld->ngd", p.reshape(num_kv_heads, group, -1), v[:, a:a + part])
            parts.append((m, total, o.reshape(heads, d).to(query.dtype)))
        result.append(parts)
    return result


def _args(num_kv_heads, scale, tp_rank, local, vert, block, step):
    return int(num_kv_heads), float(scale), int(tp_rank), int(local), int(vert), int(block), int(step)


def paged_attention_v1(out, query, key_cache, value_cache, num_kv_heads, scale, block_tables, seq_lens,
                       block_size, max_seq_len, alibi_slopes, kv_cache_dtype, k_scale, v_scale, tp_rank,
                       blocksparse_local_blocks, blocksparse_vert_stride, blocksparse_block_size,
                       blocksparse_head_sliding_step):
    """Single-pass PagedAttention decode: out[s, h] = softmax(q.K^T) V over the paged cache."""
    hk, sc, tp, lo, ve, bl, st = _args(num_kv_heads, scale, tp_rank, blocksparse_local_blocks,
                                       blocksparse_vert_stride, blocksparse_block_size,
                                       blocksparse_head_sliding_step)
    whole = max(int(seq_lens.max()), 1)
    parts = _partials(query, key_cache, value_cache, hk, sc, block_tables, seq_lens, alibi_slopes,
                      kv_cache_dtype, k_scale, v_scale, tp, lo, ve, bl, st, whole)
    for s, ps in enumerate(parts):
        out[s] = ps[0][2] if ps else 0.0  # an empty sequence averages nothing
    return None


def paged_attention_v2(out, exp_sums, max_logits, tmp_out, query, key_cache, value_cache, num_kv_heads, scale,
                       block_tables, seq_lens, block_size, max_seq_len, alibi_slopes, kv_cache_dtype, k_scale,
                       v_scale, tp_rank, blocksparse_local_blocks, blocksparse_vert_stride,
                       blocksparse_block_size, blocksparse_head_sliding_step):
    """PagedAttention decode over 512-token partitions, then their log-sum-exp merge into out."""
    hk, sc, tp, lo, ve, bl, st = _args(num_kv_heads, scale, tp_rank, blocksparse_local_blocks,
                                       blocksparse_vert_stride, blocksparse_block_size,
                                       blocksparse_head_sliding_step)
    parts = _partials(query, key_cache, value_cache, hk, sc, block_tables, seq_lens, alibi_slopes,
                      kv_cache_dtype, k_scale, v_scale, tp, lo, ve, bl, st, PARTITION_SIZE)
    for s, ps in enumerate(parts):
        for j, (m, total, o) in enumerate(ps):
            max_logits[s, :, j], exp_sums[s, :, j], tmp_out[s, :, j] = m, total, o
        if len(ps) <= 1:
            out[s] = ps[0][2] if ps else 0.0
            continue
        m = torch.stack([p[0] for p in ps], dim=1)  # [H, P]
        w = torch.stack([p[1] for p in ps], dim=1) * torch.exp(m - m.amax(1, keepdim=True))
        o = torch.stack([p[2] for p in ps], dim=1).float()  # [H, P, d]
        out[s] = (o * (w / (w.sum(1, keepdim=True) + 1e-6))[..., None]).sum(1).to(out.dtype)
    return None


# ---------------------------------------------------------------------------------------------- inputs


def _block_table(gen: torch.Generator, need: list[int], num_blocks: int, seqs: int,
                 width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Each sequence's blocks, distinct across sequences (the rest of each row random), and which are used."""
    perm = torch.randperm(num_blocks, generator=gen)
    table = torch.randint(0, num_blocks, (seqs, width), generator=gen)
    used, at = torch.zeros(num_blocks, dtype=torch.bool), 0
    for i, n in enumerate(need):
        table[i, :n] = perm[at:at + n]
        used[perm[at:at + n]] = True
        at += n
    return table, used


def make_paged_attention_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Decode inputs as vLLM's test_paged_attention draws them, with each sequence in distinct blocks, the
    tail of every last block and every unused block poisoned (NaN / fp8 NaN bytes), and the v2 scratch
    tensors (exp_sums, max_logits, tmp_out) filled with a sentinel where the kernel leaves them alone."""
    gen = torch.Generator().manual_seed(seed)
    seqs, (heads, kv_heads) = int(params["num_seqs"]), (int(h) for h in params["num_heads"])
    d, bs = int(params["head_size"]), int(params["block_size"])
    dtype, kvd = _dtype(params["dtype"]), params.get("kv_cache_dtype", "auto")
    max_len = int(params.get("max_seq_len", 600))
    scale = float(d**-0.5)
    query = (torch.rand(seqs, heads, d, generator=gen) * 2 - 1).mul(scale).to(dtype)
    lens = torch.randint(1, max_len + 1, (seqs,), generator=gen)
    lens[-1] = max_len
    width = math.ceil(max_len / bs)
    need = [math.ceil(int(n) / bs) for n in lens]
    num_blocks = int(params.get("num_blocks") or sum(need) + 8)
    table, used = _block_table(gen, need, num_blocks, seqs, width)
    fp8 = kvd != "auto"
    cdt = torch.uint8 if fp8 else dtype
    x = 16 // torch.empty((), dtype=cdt).element_size()
    k_scale = torch.tensor(float(params.get("k_scale", 1.0 if not fp8 else 0.5)))
    v_scale = torch.tensor(float(params.get("v_scale", 1.0 if not fp8 else 2.0)))
    # drawn in a 16-bit dtype (or fp32) directly: model-size caches would need GBs of fp32 temporaries
    draw = dtype if not fp8 else torch.float16
    kvals = torch.empty(num_blocks, kv_heads, d, bs, dtype=draw).uniform_(-scale, scale, generator=gen)
    vvals = torch.empty(num_blocks, kv_heads, d, bs, dtype=draw).uniform_(-scale, scale, generator=gen)
    if fp8:
        fmt = _FP8[kvd]
        kvals = (kvals / float(k_scale)).to(fmt).view(torch.uint8)  # |values| < 1: no saturation needed
        vvals = (vvals / float(v_scale)).to(fmt).view(torch.uint8)
        poison = torch.tensor(0xFF, dtype=torch.uint8)  # NaN in e4m3fn and e5m2
    else:
        poison = torch.tensor(float("nan"), dtype=dtype)
    slot_ok = used[:, None].expand(num_blocks, bs).clone()
    for i, n in enumerate(need):  # slots past seq_len in the last block hold garbage
        tail = int(lens[i]) - (n - 1) * bs
        slot_ok[table[i, n - 1], tail:] = False
    kvals = torch.where(slot_ok[:, None, None, :], kvals, poison)
    vvals = torch.where(slot_ok[:, None, None, :], vvals, poison)
    key_cache = kvals.reshape(num_blocks, kv_heads, d // x, x, bs).permute(0, 1, 2, 4, 3).contiguous()
    alibi = torch.randn(heads, generator=gen) if params.get("use_alibi", False) else None
    n_part = math.ceil(max_len / PARTITION_SIZE)
    out = dict(out=torch.full((seqs, heads, d), float("nan"), dtype=dtype), query=query, key_cache=key_cache,
               value_cache=vvals, num_kv_heads=kv_heads, scale=scale, block_tables=table.to(torch.int32),
               seq_lens=lens.to(torch.int32), block_size=bs, max_seq_len=max_len, alibi_slopes=alibi,
               kv_cache_dtype=kvd, k_scale=k_scale, v_scale=v_scale, tp_rank=int(params.get("tp_rank", 0)),
               blocksparse_local_blocks=int(params.get("blocksparse_local_blocks", 0)),
               blocksparse_vert_stride=int(params.get("blocksparse_vert_stride", 0)),
               blocksparse_block_size=int(params.get("blocksparse_block_size", 64)),
               blocksparse_head_sliding_step=int(params.get("blocksparse_head_sliding_step", 0)))
    if params.get("version", "v1") == "v2":  # scratch tensors follow `out`, in schema order
        first = out.pop("out")
        out = dict(out=first, exp_sums=torch.full((seqs, heads, n_part), -7.0),
                   max_logits=torch.full((seqs, heads, n_part), -7.0),
                   tmp_out=torch.full((seqs, heads, n_part, d), -7.0, dtype=dtype), **out)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in out.items()}


def make_paged_attention_v1_inputs(params: dict, *, seed: int, device: str) -> dict:
    """paged_attention_v1's arguments (see make_paged_attention_inputs)."""
    return make_paged_attention_inputs(dict(params, version="v1"), seed=seed, device=device)


def make_paged_attention_v2_inputs(params: dict, *, seed: int, device: str) -> dict:
    """paged_attention_v2's arguments, scratch tensors included (see make_paged_attention_inputs)."""
    return make_paged_attention_inputs(dict(params, version="v2"), seed=seed, device=device)
