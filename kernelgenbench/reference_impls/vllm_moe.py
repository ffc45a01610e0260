"""vLLM 0.13.0 mixture-of-experts routing ops (csrc/moe/*.cu): references and input generators.

Self-contained once embedded in a task record: it imports only torch and the shared helpers
(reference_impls/inline.py writes those in).

The align ops sort (token, k) slots by expert and pad each expert's run to a multiple of block_size.
Padding slots hold the sentinel numel (batched: num_batches * max_tokens_per_batch). Within one expert's
run the CUDA kernels' order is unspecified (atomics in the large-batch path); this reference lists the
slots in ascending order, which is what the small-batch kernel produces when numel <= its thread count.
vLLM's own test compares each expert's set of slots, not their order.
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


# ------------------------------------------------------------------------------------------ routing


def _stable_topk(x: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Top-k along the last dim, largest first, equal values in ascending index order (cub ArgMax's rule)."""
    vals, idx = torch.sort(x, dim=-1, descending=True, stable=True)
    return vals[..., :k], idx[..., :k]


def topk_softmax(
    topk_weights: torch.Tensor,
    topk_indices: torch.Tensor,
    token_expert_indices: torch.Tensor,
    gating_output: torch.Tensor,
    renormalize: bool,
    bias: torch.Tensor | None = None,
    is_padding: torch.Tensor | None = None,
) -> None:
    """fp32 softmax over experts, then the k largest: weights (renormalised to sum 1 if asked), expert ids,
    and token_expert_indices[t, j] = j * num_tokens + t (the source row of each slot).

    From vLLM 0.33.0 (None is the 0.13.0 behaviour): with `bias` (fp32 [E]) experts are chosen by p + bias
    and the weights stay the unbiased p; rows flagged by `is_padding` (bool [T]) get expert id -1.
    """
    e = gating_output.shape[-1]
    x = gating_output.reshape(-1, e).float()
    ex = torch.exp(x - x.amax(dim=-1, keepdim=True))
    p = ex * (1.0 / ex.sum(dim=-1, keepdim=True))
    k = topk_weights.shape[-1]
    w, idx = _stable_topk(p, k)
    if bias is not None:
        _, idx = _stable_topk(p + bias.float(), k)
        w = p.gather(-1, idx)
    if is_padding is not None:
        idx = torch.where(is_padding.reshape(-1, 1).bool(), torch.full_like(idx, -1), idx)
    if renormalize:
        s = w.sum(dim=-1, keepdim=True)
        w = w / torch.where(s > 0, s, torch.ones_like(s))
    t = x.shape[0]
    src = torch.arange(k, device=x.device).unsqueeze(0) * t + torch.arange(t, device=x.device).unsqueeze(1)
    topk_weights.copy_(w.reshape(topk_weights.shape))
    topk_indices.copy_(idx.reshape(topk_indices.shape))
    token_expert_indices.copy_(src.reshape(token_expert_indices.shape))


def _sigmoid_like_kernel(x: torch.Tensor) -> torch.Tensor:
    """sigmoid_accurate: 0.5 * tanh(0.5 x) + 0.5 in fp32, cast back to the scores dtype."""
    f = x.float()
    return (0.5 * torch.tanh(0.5 * f) + 0.5).to(x.dtype)


def grouped_topk(
    scores: torch.Tensor,
    n_group: int,
    topk_group: int,
    topk: int,
    renormalize: bool,
    routed_scaling_factor: float,
    bias: torch.Tensor,
    scoring_func: int,
) -> tuple[torch.Tensor, torch.Tensor]:
    """DeepSeek-V3 'noaux_tc' routing. s = scores (scoring_func 0) or sigmoid(scores) (1); choice = s + bias;
    group score = sum of the 2 largest choice values in the group; keep the topk_group best groups; take the
    topk best experts of those by choice; weights are the unbiased s of the chosen experts, divided by their
    sum (+1e-20) if renormalize, times routed_scaling_factor. Returns (fp32 [T, topk], int32 [T, topk]).
    All of s, choice and group scores are rounded to the scores dtype, as the kernel keeps them in T."""
    t, e = scores.shape
    per = e // n_group
    s = _sigmoid_like_kernel(scores) if scoring_func == 1 else scores
    choice = s + bias.to(scores.dtype)
    group_vals = choice.view(t, n_group, per).topk(min(2, per), dim=-1).values
    group_scores = group_vals.sum(dim=-1, dtype=torch.float32).to(scores.dtype) if per > 1 else group_vals[..., 0]
    group_scores = torch.where(torch.isfinite(group_scores), group_scores, torch.full_like(group_scores, -torch.inf))
    gvals, gidx = _stable_topk(group_scores.float(), topk_group)
    gmask = torch.zeros(t, n_group, dtype=torch.bool, device=scores.device).scatter_(1, gidx, True)
    emask = gmask.unsqueeze(-1).expand(t, n_group, per).reshape(t, e) & torch.isfinite(scores)
    masked = torch.where(emask, choice.float(), torch.full((t, e), -torch.inf, device=scores.device))
    _, idx = _stable_topk(masked, topk)
    base = s.gather(1, idx).float()
    if renormalize:
        denom = base.sum(dim=-1, keepdim=True) + torch.tensor(1e-20, dtype=torch.float32)
        vals = ((base / denom).double() * routed_scaling_factor).float()
    else:
        vals = (base.double() * routed_scaling_factor).float()
    idx = idx.to(torch.int32)
    # All groups -inf: the kernel falls back to experts 0..topk-1 with weight 1/topk.
    dead = ~torch.isfinite(gvals[:, -1])
    if bool(dead.any()):
        vals[dead] = 1.0 / topk
        idx[dead] = torch.arange(topk, dtype=torch.int32, device=scores.device)
    return vals, idx


# ------------------------------------------------------------------------------------------ align


def _align_into(
    local_ids: torch.Tensor,
    keep: torch.Tensor,
    num_experts: int,
    block_size: int,
    numel: int,
    sorted_out: torch.Tensor,
    expert_out: torch.Tensor,
    inactive_expert_id: int,
) -> int:
    """Fill one (sorted ids, expert ids) pair; returns num_tokens_post_pad. `keep` marks counted slots."""
    ids = torch.where(keep, local_ids, torch.zeros_like(local_ids))
    counts = torch.bincount(ids[keep], minlength=num_experts)[:num_experts]
    padded = (counts + block_size - 1) // block_size * block_size
    starts = torch.cumsum(padded, 0) - padded
    total = int(padded.sum())
    sorted_out.fill_(numel)
    slots = torch.nonzero(keep).flatten()  # ascending slot order
    if slots.numel():
        e = ids[slots]
        order = torch.sort(e, stable=True).indices
        slots, e = slots[order], e[order]
        first = torch.cumsum(counts, 0) - counts
        rank = torch.arange(slots.numel(), device=slots.device) - first[e]
        sorted_out[starts[e] + rank] = slots.to(sorted_out.dtype)
    n_blocks = min(_cdiv(sorted_out.numel(), block_size), expert_out.numel())
    blocks = torch.full((n_blocks,), inactive_expert_id, dtype=expert_out.dtype, device=expert_out.device)
    used = total // block_size
    if used:
        blocks[:used] = torch.repeat_interleave(
            torch.arange(num_experts, device=expert_out.device), padded // block_size).to(blocks.dtype)
    expert_out[:n_blocks] = blocks
    return total


def _local_ids(topk_ids: torch.Tensor, num_experts: int, expert_map: torch.Tensor | None):
    ids = topk_ids.reshape(-1).long()
    keep = (ids >= 0) & (ids < num_experts)  # the large-batch kernel skips ids >= num_experts
    if expert_map is not None:
        mapped = expert_map.long()[torch.where(keep, ids, torch.zeros_like(ids))]
        keep = keep & (mapped != -1)
        ids = mapped
    return ids, keep


def moe_align_block_size(
    topk_ids: torch.Tensor,
    num_experts: int,
    block_size: int,
    sorted_token_ids: torch.Tensor,
    experts_ids: torch.Tensor,
    num_tokens_post_pad: torch.Tensor,
    maybe_expert_map: torch.Tensor | None,
) -> None:
    """Group the flattened (token, k) slots of topk_ids by expert, each expert's run padded to block_size.

    sorted_token_ids (all of it) = numel except the runs; experts_ids[b] = expert of block b for the used
    blocks, 0 for the rest up to ceil(sorted_token_ids.numel() / block_size); num_tokens_post_pad[0] = used
    length. With maybe_expert_map, ids map to local experts and those mapping to -1 are dropped.
    """
    ids, keep = _local_ids(topk_ids, num_experts, maybe_expert_map)
    total = _align_into(ids, keep, num_experts, block_size, ids.numel(), sorted_token_ids.view(-1),
                        experts_ids.view(-1), 0)
    num_tokens_post_pad.view(-1)[0] = total


def batched_moe_align_block_size(
    max_tokens_per_batch: int,
    block_size: int,
    expert_num_tokens: torch.Tensor,
    sorted_token_ids: torch.Tensor,
    experts_ids: torch.Tensor,
    num_tokens_post_pad: torch.Tensor,
) -> None:
    """Batched layout: batch b owns rows [b*max_tokens_per_batch, +expert_num_tokens[b]); their ids are laid
    out batch after batch, each run padded to block_size; sentinel B*max_tokens_per_batch, block id -1."""
    b = expert_num_tokens.numel()
    n = expert_num_tokens.reshape(-1).long().cpu()
    sorted_token_ids.fill_(b * max_tokens_per_batch)
    experts_ids.fill_(-1)
    padded = (n + block_size - 1) // block_size * block_size
    starts = (torch.cumsum(padded, 0) - padded).tolist()
    flat = sorted_token_ids.view(-1)
    for i in range(b):
        cnt = int(n[i])
        if cnt:
            flat[starts[i]: starts[i] + cnt] = torch.arange(
                i * max_tokens_per_batch, i * max_tokens_per_batch + cnt, dtype=flat.dtype, device=flat.device)
        nb = int(padded[i]) // block_size
        if nb:
            experts_ids.view(-1)[starts[i] // block_size: starts[i] // block_size + nb] = i
    if b:
        num_tokens_post_pad.view(-1)[0] = int(padded.sum())


def moe_lora_align_block_size(
    topk_ids: torch.Tensor,
    token_lora_mapping: torch.Tensor,
    num_experts: int,
    block_size: int,
    max_loras: int,
    max_num_tokens_padded: int,
    max_num_m_blocks: int,
    sorted_token_ids: torch.Tensor,
    experts_ids: torch.Tensor,
    num_tokens_post_pad: torch.Tensor,
    adapter_enabled: torch.Tensor,
    lora_ids: torch.Tensor,
    maybe_expert_map: torch.Tensor | None,
) -> None:
    """moe_align_block_size once per LoRA slot: for lora_idx < max_loras with lora_id = lora_ids[lora_idx]
    not -1 and adapter_enabled[lora_id] != 0, only tokens with token_lora_mapping == lora_id count; results go
    to sorted_token_ids[lora_id * max_num_tokens_padded:][:max_num_tokens_padded], experts_ids[lora_id *
    max_num_m_blocks:][:max_num_m_blocks] (unused blocks -1) and num_tokens_post_pad[lora_id]. Skipped
    slots are left untouched."""
    topk = topk_ids.shape[1]
    ids, keep = _local_ids(topk_ids, num_experts, maybe_expert_map)
    token_of_slot = torch.arange(ids.numel(), device=ids.device) // topk
    mapping = token_lora_mapping.reshape(-1).long()
    enabled = adapter_enabled.reshape(-1)
    sorted_flat, expert_flat = sorted_token_ids.view(-1), experts_ids.view(-1)
    for lora_idx in range(max_loras):
        lora_id = int(lora_ids.reshape(-1)[lora_idx])
        if lora_id == -1 or int(enabled[lora_id]) == 0:
            continue
        mine = keep & (mapping[token_of_slot] == lora_id)
        so = sorted_flat[lora_id * max_num_tokens_padded: (lora_id + 1) * max_num_tokens_padded]
        eo = expert_flat[lora_id * max_num_m_blocks: (lora_id + 1) * max_num_m_blocks]
        num_tokens_post_pad.view(-1)[lora_id] = _align_into(ids, mine, num_experts, block_size, ids.numel(), so,
                                                            eo, -1)


# ------------------------------------------------------------------------------------------ data movement


def moe_sum(input: torch.Tensor, output: torch.Tensor) -> None:
    """output[t] = sum_k input[t, k]. For topk 2..4 the kernel adds in the dtype, one rounding per add;
    otherwise it calls at::sum_out (fp32 accumulation)."""
    k = input.shape[1]
    if k in (2, 3, 4):
        acc = input[:, 0].clone()
        for j in range(1, k):
            acc = acc + input[:, j]
        output.copy_(acc.reshape(output.shape))
    else:
        output.copy_(input.sum(dim=1).reshape(output.shape))


def shuffle_rows(input_tensor: torch.Tensor, dst2src_map: torch.Tensor, output_tensor: torch.Tensor) -> None:
    """output_tensor[i] = input_tensor[dst2src_map[i]] for every output row (rows may repeat: expansion)."""
    output_tensor.copy_(input_tensor[dst2src_map.long()[: output_tensor.shape[0]]])


# ----------------------------------------------------------------------------------------------- inputs


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(int(seed))


def _distinct_experts(m: int, topk: int, num_experts: int, g: torch.Generator) -> torch.Tensor:
    """[m, topk] int32, each row topk distinct experts (as the tests' randperm(num_experts)[:topk])."""
    return torch.rand(m, num_experts, generator=g).argsort(dim=1)[:, :topk].to(torch.int32)


def make_topk_softmax_inputs(params: dict, *, seed: int, device: str) -> dict:
    """topk_softmax args: gating logits ~ N(0,1) [T, E] in `dtype`; outputs poisoned (fp32 / int32 / int32)."""
    g = _gen(seed)
    t, e = int(params.get("num_tokens", 33)), int(params.get("num_experts", 64))
    k = min(int(params.get("topk", 2)), e)
    dtype = _dtype(params.get("dtype", "float32"))
    idx_dtype = _dtype(params.get("indices_dtype", "int32"))
    return {
        "topk_weights": torch.full((t, k), float("nan"), dtype=torch.float32, device=device),
        "topk_indices": torch.full((t, k), -1, dtype=idx_dtype, device=device),
        "token_expert_indices": torch.full((t, k), -1, dtype=torch.int32, device=device),
        "gating_output": torch.randn(t, e, generator=g).to(dtype).to(device),
        "renormalize": bool(params.get("renormalize", False)),
    }


def make_grouped_topk_inputs(params: dict, *, seed: int, device: str) -> dict:
    """grouped_topk args as test_grouped_topk: scoring 'softmax' passes softmax(logits) with scoring_func 0
    (what fused_grouped_topk does), 'sigmoid' passes raw logits with scoring_func 1; bias ~ N(0,1) cast to
    the scores dtype."""
    g = _gen(seed)
    t, e = int(params.get("num_tokens", 33)), int(params.get("num_experts", 16))
    dtype = _dtype(params.get("dtype", "float32"))
    n_group = int(params.get("n_group", 8))
    topk_group = min(int(params.get("topk_group", 2)), n_group)
    topk = min(int(params.get("topk", 2)), topk_group * (e // n_group))
    logits = torch.randn(t, e, generator=g).to(dtype)
    bias = torch.randn(e, generator=g).to(dtype)
    func = params.get("scoring_func", "softmax")
    func = {"softmax": 0, "none": 0, "sigmoid": 1}.get(func, func) if isinstance(func, str) else int(func)
    scores = torch.softmax(logits, dim=-1) if func == 0 else logits
    return {"scores": scores.to(device), "n_group": n_group, "topk_group": topk_group, "topk": topk,
            "renormalize": bool(params.get("renormalize", True)),
            "routed_scaling_factor": float(params.get("routed_scaling_factor", 1.0)),
            "bias": bias.to(device), "scoring_func": int(func)}


def _align_sizes(numel: int, num_experts: int, block_size: int, pad_sorted_ids: bool) -> tuple[int, int]:
    """The buffer sizes vllm's moe_align_block_size wrapper allocates."""
    n = numel + num_experts * (block_size - 1)
    if pad_sorted_ids:
        n = _cdiv(n, block_size) * block_size
    if numel < num_experts:
        n = min(numel * block_size, n)
    return n, _cdiv(n, block_size)


def make_moe_align_block_size_inputs(params: dict, *, seed: int, device: str) -> dict:
    """moe_align_block_size args: topk_ids [m, topk] int32 with distinct experts per token; buffers sized as
    the vLLM wrapper sizes them and poisoned; with `expert_map`, even experts are local (EP shard)."""
    g = _gen(seed)
    m, e = int(params.get("num_tokens", 3)), int(params.get("num_experts", 32))
    k = min(int(params.get("topk", 2)), e)
    bs = int(params.get("block_size", 32))
    ids = _distinct_experts(m, k, e, g)
    n, blocks = _align_sizes(ids.numel(), e, bs, bool(params.get("pad_sorted_ids", False)))
    emap = None
    if bool(params.get("expert_map", False)):
        emap = torch.full((e,), -1, dtype=torch.int32)
        local = torch.arange(0, e, 2)
        emap[local] = torch.arange(local.numel(), dtype=torch.int32)
        emap = emap.to(device)
    return {"topk_ids": ids.to(device), "num_experts": e, "block_size": bs,
            "sorted_token_ids": torch.full((n,), -7, dtype=torch.int32, device=device),
            "experts_ids": torch.full((blocks,), -7, dtype=torch.int32, device=device),
            "num_tokens_post_pad": torch.full((1,), -7, dtype=torch.int32, device=device),
            "maybe_expert_map": emap}


def make_batched_moe_align_block_size_inputs(params: dict, *, seed: int, device: str) -> dict:
    """batched_moe_align_block_size args: expert_num_tokens ~ U{0..max-1} int32, half zeroed when
    simulate_empty_batches; buffers sized B * round_up(max_tokens_per_batch, block_size)."""
    g = _gen(seed)
    mt, e = int(params.get("max_tokens_per_batch", 13)), int(params.get("num_experts", 8))
    bs = int(params.get("block_size", 8))
    counts = torch.randint(0, max(mt, 1), (e,), generator=g, dtype=torch.int32)
    if bool(params.get("simulate_empty_batches", False)):
        counts[torch.randperm(e, generator=g)[: e // 2]] = 0
    size = _cdiv(mt, bs) * bs * e
    return {"max_tokens_per_batch": mt, "block_size": bs, "expert_num_tokens": counts.to(device),
            "sorted_token_ids": torch.full((size,), -7, dtype=torch.int32, device=device),
            "experts_ids": torch.full((size // bs,), -7, dtype=torch.int32, device=device),
            "num_tokens_post_pad": torch.full((1,), -7, dtype=torch.int32, device=device)}


def make_moe_lora_align_block_size_inputs(params: dict, *, seed: int, device: str) -> dict:
    """moe_lora_align_block_size args as tests/lora/test_moe_lora_align_sum.py: each token maps to a LoRA in
    [0, max_loras) (a share `no_lora_share` to -1, i.e. no adapter); lora_ids = arange(max_loras + 2),
    adapter_enabled all ones; buffers pre-filled as the test does (numel / num_experts / 0)."""
    g = _gen(seed)
    t, e = int(params.get("num_tokens", 100)), int(params.get("num_experts", 64))
    k = min(int(params.get("topk_num", 6)), e)
    loras, bs = int(params.get("max_loras", 2)), int(params.get("block_size", 16))
    ids = _distinct_experts(t, k, e, g)
    mapping = torch.randint(0, loras, (t,), generator=g, dtype=torch.int32)
    share = float(params.get("no_lora_share", 0.0))
    if share > 0:
        mapping[torch.rand(t, generator=g) < share] = -1
    n = _cdiv(ids.numel() + e * (bs - 1), bs) * bs
    blocks = _cdiv(n, bs)
    return {"topk_ids": ids.to(device), "token_lora_mapping": mapping.to(device), "num_experts": e,
            "block_size": bs, "max_loras": loras, "max_num_tokens_padded": n, "max_num_m_blocks": blocks,
            "sorted_token_ids": torch.full((loras * n,), ids.numel(), dtype=torch.int32, device=device),
            "experts_ids": torch.full((loras * blocks,), e, dtype=torch.int32, device=device),
            "num_tokens_post_pad": torch.zeros((loras,), dtype=torch.int32, device=device),
            "adapter_enabled": torch.ones((loras + 1,), dtype=torch.int32, device=device),
            "lora_ids": torch.arange(loras + 2, dtype=torch.int32, device=device),
            "maybe_expert_map": None}


def make_moe_sum_inputs(params: dict, *, seed: int, device: str) -> dict:
    """moe_sum args: input ~ N(0,1) [m, topk, k], output [m, k] poisoned."""
    g = _gen(seed)
    m, k, d = int(params.get("num_tokens", 1)), int(params.get("topk", 2)), int(params.get("hidden_size", 128))
    dtype = _dtype(params.get("dtype", "float32"))
    return {"input": torch.randn(m, k, d, generator=g).to(dtype).to(device),
            "output": torch.full((m, d), float("nan"), dtype=dtype, device=device)}


def make_shuffle_rows_inputs(params: dict, *, seed: int, device: str) -> dict:
    """shuffle_rows args: dst2src_map int32 is a random permutation ('permutation'), 'identity', 'reverse',
    or `expand`x as many rows drawn with repetition ('expansion'); output poisoned."""
    g = _gen(seed)
    t, h = int(params.get("num_tokens", 16)), int(params.get("hidden_size", 128))
    dtype = _dtype(params.get("dtype", "float16"))
    kind = str(params.get("mapping", "permutation"))
    if kind == "identity":
        m = torch.arange(t)
    elif kind == "reverse":
        m = torch.arange(t - 1, -1, -1)
    elif kind == "expansion":
        m = torch.randint(0, t, (t * int(params.get("expand", 2)),), generator=g)
    else:
        m = torch.randperm(t, generator=g)
    return {"input_tensor": torch.randn(t, h, generator=g).to(dtype).to(device),
            "dst2src_map": m.to(torch.int32).to(device),
            "output_tensor": torch.full((m.numel(), h), float("nan"), dtype=dtype, device=device)}


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)


def moe_align_block_size_v033(
    topk_ids: torch.Tensor,
    num_experts: int,
    block_size: int,
    sorted_token_ids: torch.Tensor,
    experts_ids: torch.Tensor,
    num_tokens_post_pad: torch.Tensor,
    maybe_expert_map: torch.Tensor | None,
    scatter_idx: torch.Tensor | None = None,
) -> None:
    """moe_align_block_size as vLLM 0.33.0 on has it: the blocks past the used ones get expert id -1 (0 at
    0.13.0), and scatter_idx (int32 [numel], optional) gets i for each kept slot i, -1 for a dropped one."""
    ids, keep = _local_ids(topk_ids, num_experts, maybe_expert_map)
    total = _align_into(ids, keep, num_experts, block_size, ids.numel(), sorted_token_ids.view(-1),
                        experts_ids.view(-1), -1)
    num_tokens_post_pad.view(-1)[0] = total
    if scatter_idx is not None:
        slots = torch.arange(ids.numel(), dtype=torch.int32, device=scatter_idx.device)
        scatter_idx.view(-1).copy_(torch.where(keep.reshape(-1).to(scatter_idx.device), slots, -1))


def moe_sum_v033(input: torch.Tensor, output: torch.Tensor, topk_ids: torch.Tensor | None = None,
                 expert_map: torch.Tensor | None = None) -> None:
    """output[t] = sum_k input[t, k], accumulated in fp32 and rounded once (the kernels from 0.33.0; 0.13.0
    added in the dtype for topk 2..4). With topk_ids, slots whose expert id is < 0 (or maps to -1 through
    expert_map) are left out."""
    x = input.float()
    if topk_ids is not None:
        ids = topk_ids.long()
        drop = ids < 0
        if expert_map is not None:
            drop = drop | (expert_map.long()[ids.clamp_min(0)] < 0)
        x = x * (~drop).unsqueeze(-1).to(x.dtype)
    output.copy_(x.sum(dim=1).reshape(output.shape).to(output.dtype))


def grouped_topk_v034(scores: torch.Tensor, n_group: int, topk_group: int, topk: int, renormalize: bool,
                      routed_scaling_factor: float, bias: torch.Tensor, scoring_func: int,
                      is_padding: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """grouped_topk; rows flagged by is_padding (bool [T], schema from vLLM 0.34.0) get weight 0, id -1."""
    w, idx = grouped_topk(scores, n_group, topk_group, topk, renormalize, routed_scaling_factor, bias,
                          scoring_func)
    if is_padding is not None:
        pad = is_padding.reshape(-1, 1).bool()
        w = torch.where(pad, torch.zeros_like(w), w)
        idx = torch.where(pad, torch.full_like(idx, -1), idx)
    return w, idx


def _padding_rows(params: dict, t: int, device: str) -> torch.Tensor | None:
    """Workload param `padding_rows`: the last n rows flagged as padding (None when absent)."""
    n = params.get("padding_rows")
    if n is None:
        return None
    pad = torch.zeros(t, dtype=torch.bool)
    pad[t - min(int(n), t):] = True
    return pad.to(device)


def make_topk_softmax_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_topk_softmax_inputs, a fp32 correction bias when `bias` is set, padding rows per `padding_rows`."""
    x = make_topk_softmax_inputs(params, seed=seed, device=device)
    t, e = x["gating_output"].shape
    bias = None
    if bool(params.get("bias", False)):
        bias = (torch.randn(e, generator=_gen(int(seed) + 1)) * 0.5).float().to(device)
    return {**x, "bias": bias, "is_padding": _padding_rows(params, t, device)}


def make_grouped_topk_inputs_v034(params: dict, *, seed: int, device: str) -> dict:
    """make_grouped_topk_inputs and is_padding per the `padding_rows` workload param."""
    x = make_grouped_topk_inputs(params, seed=seed, device=device)
    return {**x, "is_padding": _padding_rows(params, x["scores"].shape[0], device)}


def make_moe_align_block_size_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_moe_align_block_size_inputs and a poisoned int32 scatter_idx when the `scatter_idx` param is set."""
    x = make_moe_align_block_size_inputs(params, seed=seed, device=device)
    sc = None
    if bool(params.get("scatter_idx", False)):
        sc = torch.full((x["topk_ids"].numel(),), -7, dtype=torch.int32, device=device)
    return {**x, "scatter_idx": sc}


def make_moe_sum_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_moe_sum_inputs; with `topk_ids` set, int32 ids where the last `padding_rows` tokens are -1 and,
    with `expert_map`, odd experts map to -1."""
    x = make_moe_sum_inputs(params, seed=seed, device=device)
    m, k = x["input"].shape[:2]
    ids = emap = None
    if bool(params.get("topk_ids", False)):
        e = max(int(params.get("num_experts", 8)), k)
        ids = _distinct_experts(m, k, e, _gen(int(seed) + 1))
        pad = _padding_rows(params, m, "cpu")
        if pad is not None:
            ids[pad] = -1
        if bool(params.get("expert_map", False)):
            emap = torch.arange(e, dtype=torch.int32)
            emap[1::2] = -1
            emap = emap.to(device)
        ids = ids.to(device)
    return {**x, "topk_ids": ids, "expert_map": emap}
