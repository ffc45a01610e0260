"""vLLM 0.13.0 rotary position embedding ops (csrc/pos_encoding_kernels.cu, csrc/fused_qknorm_rope_kernel.cu).

Self-contained once embedded in a task record: it imports only torch and the shared helpers
(reference_impls/inline.py writes those in).
cos_sin_cache is [max_position, rot_dim]: cos in the first rot_dim/2 columns, sin in the rest.
NeoX style rotates the pairs (i, i + rot_dim/2); GPT-J style the adjacent pairs (2i, 2i + 1).
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype


def _heads_view(t: torch.Tensor, num_tokens: int, head_size: int, token_stride: int, head_stride: int):
    """The [tokens, heads, head_size] view the kernel addresses (token_idx * stride(seq) + head * head_stride)."""
    heads = t.numel() // num_tokens // head_size
    return t.as_strided((num_tokens, heads, head_size), (token_stride, head_stride, 1), t.storage_offset())


def _pair_views(t: torch.Tensor, rot_dim: int, is_neox: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The (x, y) halves of each rotated pair, as views of t's first rot_dim features."""
    half = rot_dim // 2
    if is_neox:
        return t[..., :half], t[..., half:rot_dim]
    return t[..., 0:rot_dim:2], t[..., 1:rot_dim:2]


def _rotate(view: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, is_neox: bool) -> None:
    """arr[x] = x*cos - y*sin; arr[y] = y*cos + x*sin, each product and sum rounded to the dtype like the kernel."""
    x, y = _pair_views(view, 2 * cos.shape[-1], is_neox)
    c = cos.unsqueeze(1)
    s = sin.unsqueeze(1)
    new_x = x * c - y * s
    new_y = y * c + x * s
    x.copy_(new_x)
    y.copy_(new_y)


def rotary_embedding(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor | None,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
) -> None:
    """Rotate the first rot_dim = cos_sin_cache.size(1) features of every head of query (and key) in place.

    positions is [num_tokens] or [batch, seq]; query/key are [..., heads * head_size] or [..., heads, head_size]
    (views with a token stride and head stride are fine, the last dim must be contiguous).
    """
    num_tokens = positions.numel()
    seq_dim = positions.dim() - 1
    rot_dim = cos_sin_cache.shape[1]
    cache = cos_sin_cache[positions.reshape(-1).long()]
    cos, sin = cache[:, : rot_dim // 2], cache[:, rot_dim // 2 :]
    head_stride = query.stride(-2) if query.dim() == positions.dim() + 2 else head_size
    for t in (query, key):
        if t is None:
            continue
        view = _heads_view(t, num_tokens, head_size, t.stride(seq_dim), head_stride)
        _rotate(view[..., :rot_dim], cos, sin, is_neox)


def fused_qk_norm_rope(
    qkv: torch.Tensor,
    num_heads_q: int,
    num_heads_k: int,
    num_heads_v: int,
    head_dim: int,
    eps: float,
    q_weight: torch.Tensor,
    k_weight: torch.Tensor,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
    position_ids: torch.Tensor,
    forced_token_heads_per_warp: int = -1,
) -> None:
    """Per-head RMSNorm (q_weight / k_weight) then full-head RoPE on the q and k heads of a packed
    [tokens, (hq + hk + hv) * head_dim] qkv, in place; v untouched. All arithmetic in fp32, one rounding at
    the end (unlike rms_norm + rotary_embedding, which round in between).

    forced_token_heads_per_warp (schema from vLLM 0.33.0) picks how the kernel spreads heads over warps
    (-1: its own choice); the values do not depend on it."""
    t = qkv.shape[0]
    heads = qkv.view(t, num_heads_q + num_heads_k + num_heads_v, head_dim)
    qk = heads[:, : num_heads_q + num_heads_k].float()
    inv = torch.rsqrt((qk * qk).sum(-1, keepdim=True) / head_dim + torch.tensor(eps, dtype=torch.float32))
    w = torch.cat([q_weight.float().expand(num_heads_q, head_dim), k_weight.float().expand(num_heads_k, head_dim)])
    x = qk * (inv * w)  # the kernel multiplies by (rms_rcp * weight)
    cache = cos_sin_cache[position_ids.long()].float()
    half = head_dim // 2
    cos, sin = cache[:, None, :half], cache[:, None, half:]
    a, b = _pair_views(x, head_dim, is_neox)
    new_a = a * cos - b * sin
    new_b = b * cos + a * sin
    a.copy_(new_a)
    b.copy_(new_b)
    heads[:, : num_heads_q + num_heads_k] = x.to(qkv.dtype)


# ----------------------------------------------------------------------------------------------- inputs


def make_cos_sin_cache(max_position: int, rot_dim: int, base: float, dtype: torch.dtype) -> torch.Tensor:
    """vLLM RotaryEmbedding._compute_cos_sin_cache: fp32 inv_freq = 1/base^(2i/rot_dim), then cast."""
    inv_freq = 1.0 / (base ** (torch.arange(0, rot_dim, 2, dtype=torch.float) / rot_dim))
    freqs = torch.outer(torch.arange(max_position, dtype=torch.float), inv_freq)
    return torch.cat((freqs.cos(), freqs.sin()), dim=-1).to(dtype)


def _layout(value) -> str:
    """The test's tensor_shape_fn (a function, seen as its name or repr) -> 'batch' | 'flat' | 'padded'."""
    text = str(value or "batch").lower()
    return "flat" if "flat" in text else "padded" if "padded" in text else "batch"


def make_rotary_embedding_inputs(params: dict, *, seed: int, device: str) -> dict:
    """rotary_embedding args as test_pos_encoding.py: positions [batch, seq] < max_position, query/key in the
    batch ([B,S,H,D]), flat ([B,S,H*D]) or padded ([B,S,H,D+64] sliced to D) layout."""
    g = torch.Generator().manual_seed(int(seed))
    b, s = int(params.get("batch_size", 5)), int(params.get("seq_len", 11))
    heads, hs = int(params.get("num_heads", 17)), int(params.get("head_size", 64))
    rot = params.get("rotary_dim")
    rot = hs if rot is None else min(int(rot), hs)
    dtype = _dtype(params.get("dtype", "bfloat16"))
    max_pos = int(params.get("max_position", 8192))
    layout = _layout(params.get("layout"))
    use_key = bool(params.get("use_key", True))
    shape = {"batch": (b, s, heads, hs), "flat": (b, s, heads * hs), "padded": (b, s, heads, hs + 64)}[layout]
    positions = torch.randint(0, max_pos, (b, s), generator=g)
    query = torch.randn(shape, generator=g).to(dtype)
    key = torch.randn(shape, generator=g).to(dtype) if use_key else None
    if layout == "padded":
        query = query.to(device)[..., :hs]
        key = key.to(device)[..., :hs] if key is not None else None
    else:
        query = query.to(device)
        key = key.to(device) if key is not None else None
    return {"positions": positions.to(device), "query": query, "key": key, "head_size": hs,
            "cos_sin_cache": make_cos_sin_cache(max_pos, rot, float(params.get("base", 10000.0)), dtype).to(device),
            "is_neox": bool(params.get("is_neox", True))}


def make_fused_qk_norm_rope_inputs(params: dict, *, seed: int, device: str) -> dict:
    """fused_qk_norm_rope args as test_fused_qk_norm_rope.py (16 q heads, 4 kv heads, head_dim 128 unless
    given; head_dim must be 64, 128 or 256); positions are random in [0, max_position) unless `arange`."""
    g = torch.Generator().manual_seed(int(seed))
    t = int(params.get("num_tokens", 4))
    hq, hkv = int(params.get("num_heads", 16)), int(params.get("num_kv_heads", 4))
    d = int(params.get("head_dim", 128))
    dtype = _dtype(params.get("dtype", "bfloat16"))
    cache_dtype = _dtype(params.get("cache_dtype", params.get("dtype", "bfloat16")))
    max_pos = int(params.get("max_position", 4096))
    qkv = torch.randn(t, (hq + 2 * hkv) * d, generator=g).to(dtype)
    qw = (torch.randn(d, generator=g) * 0.1 + 1.0).to(dtype)
    kw = (torch.randn(d, generator=g) * 0.1 + 1.0).to(dtype)
    if bool(params.get("arange_positions", False)):
        pos = torch.arange(t, dtype=torch.long) % max_pos
    else:
        pos = torch.randint(0, max_pos, (t,), generator=g)
    return {"qkv": qkv.to(device), "num_heads_q": hq, "num_heads_k": hkv, "num_heads_v": hkv, "head_dim": d,
            "eps": float(params.get("eps", 1e-6)), "q_weight": qw.to(device), "k_weight": kw.to(device),
            "cos_sin_cache": make_cos_sin_cache(max_pos, d, float(params.get("base", 10000.0)), cache_dtype).to(device),
            "is_neox": bool(params.get("is_neox", True)), "position_ids": pos.to(device)}


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)


def rotary_embedding_v033(
    positions: torch.Tensor,
    query: torch.Tensor,
    key: torch.Tensor | None,
    head_size: int,
    cos_sin_cache: torch.Tensor,
    is_neox: bool,
    rope_dim_offset: int = 0,
    inverse: bool = False,
) -> None:
    """rotary_embedding as csrc/pos_encoding_kernels.cu has it from 0.33.0: the rotated features start at
    rope_dim_offset within each head, inverse negates sin (the inverse rotation), and each rotated value is
    computed in fp32 and rounded once (0.13.0 rounded each product to the dtype)."""
    num_tokens = positions.numel()
    seq_dim = positions.dim() - 1
    rot_dim = cos_sin_cache.shape[1]
    if rot_dim + rope_dim_offset > head_size:
        raise ValueError("rotary_dim + rope_dim_offset exceeds head_size")
    cache = cos_sin_cache[positions.reshape(-1).long()].float()
    cos, sin = cache[:, None, : rot_dim // 2], cache[:, None, rot_dim // 2 :]
    if inverse:
        sin = -sin
    head_stride = query.stride(-2) if query.dim() == positions.dim() + 2 else head_size
    for t in (query, key):
        if t is None:
            continue
        view = _heads_view(t, num_tokens, head_size, t.stride(seq_dim), head_stride)
        x, y = _pair_views(view[..., rope_dim_offset : rope_dim_offset + rot_dim], rot_dim, is_neox)
        xf, yf = x.float(), y.float()
        new_x, new_y = xf * cos - yf * sin, yf * cos + xf * sin
        x.copy_(new_x)
        y.copy_(new_y)


def make_rotary_embedding_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_rotary_embedding_inputs and rope_dim_offset / inverse (workload params, default 0 / False)."""
    x = make_rotary_embedding_inputs(params, seed=seed, device=device)
    return {**x, "rope_dim_offset": int(params.get("rope_dim_offset", 0)), "inverse": bool(params.get("inverse", False))}


def make_fused_qk_norm_rope_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_fused_qk_norm_rope_inputs and forced_token_heads_per_warp (workload param, default -1)."""
    x = make_fused_qk_norm_rope_inputs(params, seed=seed, device=device)
    return {**x, "forced_token_heads_per_warp": int(params.get("forced_token_heads_per_warp", -1))}
