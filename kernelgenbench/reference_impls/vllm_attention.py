"""References for two vLLM attention helper ops at v0.13.0, with input generators:

- merge_attn_states (csrc/attention/merge_attn_states.cu): merges two partial attention results over
  disjoint key sets. Outputs are [tokens, heads, head_size], LSEs float32 [heads, tokens]. An LSE of +inf
  is read as -inf. With M = max(p_lse, s_lse): if M is -inf, output = prefix_output and output_lse = -inf;
  otherwise w_p = exp(p_lse - M), w_s = exp(s_lse - M), output = (prefix * w_p + suffix * w_s) / (w_p + w_s)
  in float32, rounded to the output dtype, and output_lse (when given) = log(w_p + w_s) + M.
- convert_vertical_slash_indexes (csrc/attention/vertical_slash_index.cu, MInference's Algorithm 4): for
  every batch, head and row block of block_size_M queries, merges the slash (diagonal) indexes into
  ranges of keys stored as block starts (block_offset, block_count) and keeps the vertical (column)
  indexes outside those ranges (column_index, column_count). Row blocks at or past q_seqlens[b] are not
  written. The 0.13.0 schema names its fifth and sixth arguments both `q_seqlens`; they are the query and
  the key lengths (the wrapper passes q_seqlens, kv_seqlens), so the reference takes them positionally.
"""

from __future__ import annotations

import math

import torch

from kernelgenbench.reference_impls.shared import _dtype


def merge_attn_states(output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse):
    """Merge prefix and suffix attention outputs by their log-sum-exps (written into output/output_lse)."""
    p_lse = torch.where(torch.isinf(prefix_lse), -math.inf, prefix_lse.float())  # [H, T]
    s_lse = torch.where(torch.isinf(suffix_lse), -math.inf, suffix_lse.float())
    m = torch.maximum(p_lse, s_lse)
    dead = torch.isinf(m)
    m0 = torch.where(dead, 0.0, m)
    p_se, s_se = torch.exp(p_lse - m0), torch.exp(s_lse - m0)
    total = p_se + s_se
    p_w = (p_se / total).transpose(0, 1)[..., None]  # [T, H, 1]
    s_w = (s_se / total).transpose(0, 1)[..., None]
    merged = (prefix_output.float() * p_w + suffix_output.float() * s_w).to(output.dtype)
    output.copy_(torch.where(dead.transpose(0, 1)[..., None], prefix_output, merged))
    if output_lse is not None:
        output_lse.copy_(torch.where(dead, m, torch.log(total) + m0))
    return None


def _save_blocks(offsets: list, start: int, end: int, step: int, kv_len: int) -> None:
    if start >= kv_len:
        return
    for idx in range(start, min(end, kv_len), step):
        offsets.append(idx)


def _row(v_idx_all, s_idx_all, q_len, kv_len, start_m, bm, bn, causal):
    """One row block of Algorithm 4 as the kernel runs it: (block starts, column indexes)."""
    nnz_v, nnz_s = len(v_idx_all), len(s_idx_all)
    end_m = start_m + bm
    shift = kv_len - q_len if causal else kv_len
    blocks, cols = [], []
    has_slash = True
    s = v = 0
    v_idx = v_idx_all[v]
    v += 1
    s_idx = s_idx_all[s]
    s += 1
    while s_idx >= end_m + shift and s < nnz_s:
        s_idx = s_idx_all[s]
        s += 1
    if s_idx > end_m + shift:
        has_slash = False
    s_idx = max(shift + end_m - s_idx, bm)
    range_start, range_end = s_idx - bm, s_idx
    if not has_slash:
        range_start, range_end = shift + end_m if causal else kv_len, (shift + end_m if causal else kv_len) + bn
    slash_finished = False
    while True:
        if v_idx < range_end:
            if v_idx < range_start:
                cols.append(v_idx)
            if v < nnz_v:
                v_idx = v_idx_all[v]
                v += 1
            else:
                v_idx = end_m + bn + shift
        else:
            if (s < nnz_s and causal) or (s < nnz_s and not causal and s_idx_all[s] >= start_m):
                s_idx = max(shift + end_m - s_idx_all[s], bm)
                s += 1
            else:
                if v == nnz_v or (v_idx > range_start and causal):
                    if v == nnz_v and not causal and v_idx < kv_len:
                        cols.append(v_idx)
                    _save_blocks(blocks, range_start, range_end, bn, kv_len)
                    break
                if causal:
                    range_start, range_end = shift + end_m, shift + end_m + bn
                else:
                    _save_blocks(blocks, range_start, range_end, bn, kv_len)
                    range_start, range_end = kv_len, kv_len + bn
                slash_finished = True
            if not slash_finished:
                if s_idx > range_end + bm:
                    _save_blocks(blocks, range_start, range_end, bn, kv_len)
                    range_start, range_end = s_idx - bm, s_idx
                elif s_idx > range_end:
                    range_end += bm
    return blocks, cols


def _all_rows(q_seqlens, kv_seqlens, vertical_indexes, slash_indexes, context_size, bm, bn, causal):
    batch, heads = slash_indexes.shape[:2]
    rows = (int(context_size) + bm - 1) // bm
    q_l, kv_l = q_seqlens.tolist(), kv_seqlens.tolist()
    v_all, s_all = vertical_indexes.tolist(), slash_indexes.tolist()
    for b in range(batch):
        for h in range(heads):
            for r in range(rows):
                if r * bm >= q_l[b]:
                    continue
                yield (b, h, r), _row(v_all[b][h], s_all[b][h], q_l[b], kv_l[b], r * bm, bm, bn, causal)


def convert_vertical_slash_indexes(block_count, block_offset, column_count, column_index, q_seqlens,
                                   kv_seqlens, vertical_indexes, slash_indexes, context_size, block_size_M,
                                   block_size_N, causal):
    """Build MInference's block/column sparse index from vertical and slash indexes (written in place)."""
    bc, bo, cc, ci = (t.cpu().clone() for t in (block_count, block_offset, column_count, column_index))
    for (b, h, r), (blocks, cols) in _all_rows(q_seqlens.cpu(), kv_seqlens.cpu(), vertical_indexes.cpu(),
                                               slash_indexes.cpu(), context_size, int(block_size_M),
                                               int(block_size_N), bool(causal)):
        if len(blocks) > bo.shape[-1] or len(cols) > ci.shape[-1]:
            raise ValueError(f"row ({b}, {h}, {r}) needs {len(blocks)} block offsets and {len(cols)} columns; "
                             f"the buffers hold {bo.shape[-1]} and {ci.shape[-1]} (the kernel would overflow)")
        bc[b, h, r], cc[b, h, r] = len(blocks), len(cols)
        if blocks:
            bo[b, h, r, : len(blocks)] = torch.tensor(blocks, dtype=bo.dtype)
        if cols:
            ci[b, h, r, : len(cols)] = torch.tensor(cols, dtype=ci.dtype)
    for dst, src in ((block_count, bc), (block_offset, bo), (column_count, cc), (column_index, ci)):
        dst.copy_(src.to(dst.device))
    return None


# ---------------------------------------------------------------------------------------------- inputs


def make_merge_attn_states_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Partial outputs and LSEs as vLLM's test draws them: about 10% of LSEs +inf on one side only, plus a
    few positions -inf on both sides (an empty prefix and suffix, as chunked MLA prefill produces)."""
    gen = torch.Generator().manual_seed(seed)
    t, h, d = int(params["num_tokens"]), int(params["num_query_heads"]), int(params["head_size"])
    dtype = _dtype(params["output_dtype"])
    p_lse, s_lse = torch.randn(h, t, generator=gen), torch.randn(h, t, generator=gen)
    mp, ms = torch.rand(h, t, generator=gen) < 0.1, torch.rand(h, t, generator=gen) < 0.1
    both = mp & ms
    p_lse[mp & ~both] = math.inf
    s_lse[ms & ~both] = math.inf
    dead = torch.rand(h, t, generator=gen) < float(params.get("empty_fraction", 0.02))
    p_lse[dead], s_lse[dead] = -math.inf, -math.inf
    prefix = torch.randn(t, h, d, generator=gen).to(dtype)
    suffix = torch.randn(t, h, d, generator=gen).to(dtype)
    out = dict(output=torch.full((t, h, d), float("nan"), dtype=dtype),
               output_lse=torch.full((h, t), float("nan")) if params.get("with_output_lse", True) else None,
               prefix_output=prefix, prefix_lse=p_lse, suffix_output=suffix, suffix_lse=s_lse)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in out.items()}


def _sorted_sample(n: int, k: int, gen, descending: bool) -> torch.Tensor:
    vals = torch.randperm(max(n, 1), generator=gen)[: min(k, max(n, 1))].sort(descending=descending).values
    return torch.cat([vals, vals[-1:].expand(k - vals.numel())]) if vals.numel() < k else vals


def make_convert_vertical_slash_indexes_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Per batch and head, ascending vertical (column) indexes and descending slash indexes within the key
    length, as MInference's top-k selection yields, and zeroed outputs like the wrapper allocates. Draws
    are retried (new sub-seeds) until no row needs more block offsets than the buffer holds."""
    batch, heads = int(params["batch_size"]), int(params["num_heads"])
    context = int(params["context_size"])
    nnz_v, nnz_s = int(params["nnz_vertical"]), int(params["nnz_slash"])
    bm, bn = int(params.get("block_size_M", 64)), int(params.get("block_size_N", 64))
    causal = bool(params.get("causal", True))
    rows = (context + bm - 1) // bm
    for attempt in range(32):
        gen = torch.Generator().manual_seed(seed * 1000 + attempt)
        q_len = torch.randint(max(1, context // 2), context + 1, (batch,), generator=gen)
        q_len[0] = context
        kv_len = q_len.clone() if causal else torch.randint(1, context + 1, (batch,), generator=gen)
        vert = torch.stack([torch.stack([_sorted_sample(int(kv_len[b]), nnz_v, gen, False) for _ in range(heads)])
                            for b in range(batch)]).to(torch.int32)
        slash = torch.stack([torch.stack([_sorted_sample(int(kv_len[b]), nnz_s, gen, True) for _ in range(heads)])
                             for b in range(batch)]).to(torch.int32)
        rows_ok = all(len(blk) <= nnz_s and len(col) <= nnz_v for _, (blk, col) in
                      _all_rows(q_len, kv_len, vert, slash, context, bm, bn, causal))
        if rows_ok:
            break
    else:
        raise ValueError("could not draw vertical/slash indexes that fit the output buffers; raise nnz_slash")
    i32 = torch.int32
    out = dict(block_count=torch.zeros(batch, heads, rows, dtype=i32),
               block_offset=torch.zeros(batch, heads, rows, nnz_s, dtype=i32),
               column_count=torch.zeros(batch, heads, rows, dtype=i32),
               column_index=torch.zeros(batch, heads, rows, nnz_v, dtype=i32),
               q_seqlens=q_len.to(i32), kv_seqlens=kv_len.to(i32), vertical_indexes=vert, slash_indexes=slash,
               context_size=context, block_size_M=bm, block_size_N=bn, causal=causal)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in out.items()}


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)


def merge_attn_states_v033(output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse,
                           prefill_tokens_with_context, output_scale=None):
    """merge_attn_states for the first prefill_tokens_with_context tokens (all when None); later tokens take
    the suffix output and lse as they are (csrc/attention/merge_attn_states.cu from 0.33.0).

    output_scale (an fp8 output quantised by a static scale) is outside this reference: it raises.
    """
    if output_scale is not None:
        raise NotImplementedError("merge_attn_states with output_scale (fp8 output) has no reference")
    n = output.shape[0]
    p = n if prefill_tokens_with_context is None else int(prefill_tokens_with_context)
    if not 0 <= p <= n:
        raise ValueError("prefill_tokens_with_context must be in [0, num_tokens]")
    lse = None if output_lse is None else output_lse[:, :p]
    merge_attn_states(output[:p], lse, prefix_output[:p], prefix_lse[:, :p], suffix_output[:p], suffix_lse[:, :p])
    output[p:] = suffix_output[p:]
    if output_lse is not None:
        output_lse[:, p:] = suffix_lse[:, p:]
    return None


def make_merge_attn_states_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_merge_attn_states_inputs, prefill_tokens_with_context from the workload param (default None)
    and no output_scale."""
    x = make_merge_attn_states_inputs(params, seed=seed, device=device)
    p = params.get("prefill_tokens_with_context")
    return {**x, "prefill_tokens_with_context": None if p is None else int(p), "output_scale": None}
