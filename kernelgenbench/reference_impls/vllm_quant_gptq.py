"""References for vLLM's GPTQ ops (gptq_shuffle, gptq_gemm) at v0.13.0, with a GPTQ quantizer/packer.

Formats, from csrc/quantization/gptq/q_gemm.cu, matrix_view.cuh and qdq_{2,3,4,8}.cuh:
- b_q_weight: int32 [K * bit / 32, N]. Each column is a little-endian bit stream over K: row k's value sits at
  stream bits [k*bit, (k+1)*bit) (so for 3 bits 32 rows fill 3 words, and rows 10 and 21 straddle words).
- qzeros: int32 [groups, N * bit / 32], the same bit stream along N. The zero used is stored + 1 for the
  GPTQ v1 checkpoint format (use_v2_format=False) and stored for v2.
- scales: float16 [groups, N]. Dequantized weight = half(q - zero) * scale, rounded to half (__hmul).
- gptq_shuffle (the ExLlama preparation): when q_perm is non-empty, rows are first gathered
  (new row i = old row q_perm[i], "make_sequential"), then the bits inside every block of `bit` words are
  permuted (shuffle_{2,3,4}bit; a no-op for 8 bits) so the kernel can dequantize two values per half2.
- gptq_gemm with use_exllama=True reads the shuffled layout, takes group = k // (K // groups) in the sorted
  order and, when b_g_idx (then the permutation q_perm) is non-empty, computes a[:, perm] @ W_sorted.
  With use_exllama=False it reads the unshuffled layout and takes group = b_g_idx[k] (b_g_idx must hold K
  entries). The output is float16; kernels accumulate in half/float, the reference in float32.
"""

from __future__ import annotations

import math

import torch

_MASK32 = 0xFFFFFFFF


def _to_int32(words: torch.Tensor) -> torch.Tensor:
    """Reinterpret uint32 values held in int64 as int32."""
    words = words & _MASK32
    return torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)


def _to_uint(words: torch.Tensor) -> torch.Tensor:
    return words.to(torch.int64) & _MASK32


def _positions(bit: int) -> list[tuple[int, int, int]]:
    """For each of the 32 values of a block of `bit` words: (value index, word, bit offset) of its low bit."""
    return [(j, (j * bit) // 32, (j * bit) % 32) for j in range(32)]


def pack_stream(values: torch.Tensor, bit: int, dim: int) -> torch.Tensor:
    """Pack non-negative ints (< 2**bit) along `dim` as a little-endian bit stream of int32 words."""
    v = values.to(torch.int64).movedim(dim, 0)
    n = v.shape[0]
    if n % 32:
        raise ValueError(f"pack_stream: {n} values along dim {dim}; GPTQ packs whole groups of 32")
    v = v.reshape(n // 32, 32, *v.shape[1:])
    words = torch.zeros(n // 32, bit, *v.shape[2:], dtype=torch.int64, device=v.device)
    for j, w, off in _positions(bit):
        words[:, w] |= (v[:, j] << off) & _MASK32
        if off + bit > 32:  # the value straddles into the next word (3-bit rows 10 and 21)
            words[:, w + 1] |= v[:, j] >> (32 - off)
    return _to_int32(words.reshape(n // 32 * bit, *v.shape[2:])).movedim(0, dim)


def unpack_stream(words: torch.Tensor, bit: int, dim: int) -> torch.Tensor:
    """Inverse of pack_stream: int64 values, 32 * words.shape[dim] / bit of them along `dim`."""
    w = _to_uint(words).movedim(dim, 0)
    nw = w.shape[0]
    w = w.reshape(nw // bit, bit, *w.shape[1:])
    out = torch.empty(nw // bit, 32, *w.shape[2:], dtype=torch.int64, device=w.device)
    mask = (1 << bit) - 1
    for j, wi, off in _positions(bit):
        val = w[:, wi] >> off
        if off + bit > 32:
            val = val | (w[:, wi + 1] << (32 - off))
        out[:, j] = val & mask
    return out.reshape(nw // bit * 32, *w.shape[2:]).movedim(0, dim)


# ---- the ExLlama in-word shuffle, transcribed from qdq_{2,3,4}.cuh (on int64 tensors holding uint32) ----


def _shuffle_4bit_8(q: list[torch.Tensor]) -> list[torch.Tensor]:
    qa, qb = q[0], torch.zeros_like(q[0])
    for i in range(4):
        qa0 = qa & 0x0F
        qa1 = (qa & 0xF0) >> 4
        qa = qa >> 8
        qb = qb | (qa1 << (i * 4 + 16)) | (qa0 << (i * 4))
    return [qb & _MASK32]


def _shuffle_2bit_16(q: list[torch.Tensor]) -> list[torch.Tensor]:
    qa, qb = q[0], torch.zeros_like(q[0])
    for i in range(8):
        qa0 = qa & 0x03
        qa1 = (qa & 0x0C) >> 2
        qa = qa >> 4
        qb = qb | (qa1 << (i * 2 + 16)) | (qa0 << (i * 2))
    return [qb & _MASK32]


def _shuffle_3bit_32(q: list[torch.Tensor]) -> list[torch.Tensor]:
    qa, qb, qc = q
    qd = qc >> 26
    qc = ((qc << 4) & _MASK32) | (qb >> 28)
    qb = ((qb << 2) & _MASK32) | (qa >> 30)
    out = []
    for src in (qa, qb, qc):
        z = torch.zeros_like(src)
        for i in range(5):
            t0 = src & 0x07
            t1 = (src & 0x38) >> 3
            src = src >> 6
            z = z | (t0 << (i * 3)) | (t1 << (i * 3 + 16))
        out.append(z)
    za, zb, zc = out
    za = za | (((qd & 0x01) >> 0) << 15) | (((qd & 0x08) >> 3) << 31)
    zb = zb | (((qd & 0x02) >> 1) << 15) | (((qd & 0x10) >> 4) << 31)
    zc = zc | (((qd & 0x04) >> 2) << 15) | (((qd & 0x20) >> 5) << 31)
    return [za & _MASK32, zb & _MASK32, zc & _MASK32]


def _shuffle_fn(bit: int):
    return {2: _shuffle_2bit_16, 3: _shuffle_3bit_32, 4: _shuffle_4bit_8, 8: lambda q: q}[bit]


def _exllama_bit_map(bit: int) -> torch.Tensor:
    """dst[p]: where stream bit p of one shuffle block lands after the shuffle (found by probing)."""
    nwords = _block_words(bit)
    nbits = 32 * nwords
    probe = torch.zeros(nbits, nwords, dtype=torch.int64)
    p = torch.arange(nbits)
    probe[p, p // 32] = torch.ones(nbits, dtype=torch.int64) << (p % 32)
    out = torch.stack(_shuffle_fn(bit)([probe[:, i] for i in range(nwords)]), dim=1)  # [nbits, nwords]
    bits = (out.unsqueeze(2) >> torch.arange(32)) & 1  # [nbits, nwords, 32]
    flat = bits.reshape(nbits, nbits)
    if not bool((flat.sum(1) == 1).all()):
        raise AssertionError("the ExLlama shuffle is not a bit permutation")
    return flat.argmax(1)


def _block_words(bit: int) -> int:
    # The shuffle works on 3 words (32 values) for 3 bits and on single words otherwise.
    return 3 if bit == 3 else 1


def _moves(bit: int, inverse: bool) -> list[tuple[int, int, int, int]]:
    """(src bit, dst bit, mask) moves that realise the shuffle; whole values move together where they can."""
    dst = _exllama_bit_map(bit).tolist()
    moves = []
    for j in range(len(dst) // bit):
        src_bits = list(range(j * bit, (j + 1) * bit))
        dst_bits = [dst[p] for p in src_bits]
        if inverse:
            src_bits, dst_bits = dst_bits, src_bits
        s0, d0 = src_bits[0], dst_bits[0]
        whole = (
            src_bits == list(range(s0, s0 + bit))
            and dst_bits == list(range(d0, d0 + bit))
            and s0 // 32 == (s0 + bit - 1) // 32
            and d0 // 32 == (d0 + bit - 1) // 32
        )
        if whole:
            moves.append((s0, d0, (1 << bit) - 1))
        else:
            moves += [(sb, db, 1) for sb, db in zip(src_bits, dst_bits, strict=True)]
    return moves


def _permute_bits(words: torch.Tensor, bit: int, inverse: bool) -> torch.Tensor:
    """Move every value (or bit) of every shuffle block of a [K*bit/32, N] weight to (or back from) its shuffled place."""
    nwb = _block_words(bit)
    w = _to_uint(words)
    w = w.reshape(-1, nwb, w.shape[-1])
    out = torch.zeros_like(w)
    for src, dst, mask in _moves(bit, inverse):
        out[:, dst // 32] |= ((w[:, src // 32] >> (src % 32)) & mask) << (dst % 32)
    return _to_int32(out.reshape(words.shape))


def exllama_shuffle_words(words: torch.Tensor, bit: int) -> torch.Tensor:
    """Apply the ExLlama in-word shuffle to a GPTQ-packed int32 [K*bit/32, N] weight."""
    return _permute_bits(words, bit, inverse=False)


def exllama_unshuffle_words(words: torch.Tensor, bit: int) -> torch.Tensor:
    """Inverse of exllama_shuffle_words."""
    return _permute_bits(words, bit, inverse=True)


# ---- quantizer (the inverse of the references' unpacking) ----


def quantize_gptq(
    w: torch.Tensor, bit: int, g_idx: torch.Tensor, groups: int, *, v2: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Asymmetric per-group quantization of dense w [K, N]: (q [K, N], zero [groups, N], scale fp16 [groups, N])."""
    k, n = w.shape
    maxq = (1 << bit) - 1
    wf = w.float()
    # Every group holds K / groups rows (GPTQ's g_idx, act-order or not), so sorting rows by group makes
    # the groups contiguous blocks.
    grouped = wf[torch.argsort(g_idx.long(), stable=True)].view(groups, k // groups, n)
    lo = grouped.amin(1).clamp(max=0)
    hi = grouped.amax(1).clamp(min=0)
    scale = ((hi - lo) / maxq).clamp(min=1e-4).half()
    # v1 stores zero - 1 in `bit` bits, so a v1 zero can only be 1 .. 2**bit (kept <= maxq here).
    zero = torch.round(-lo / scale.float()).clamp(0 if v2 else 1, maxq).to(torch.int64)
    q = torch.clamp(torch.round(wf / scale.float()[g_idx.long()]) + zero[g_idx.long()], 0, maxq).to(torch.int64)
    return q, zero, scale


def dequantize_gptq(q: torch.Tensor, zero: torch.Tensor, scale: torch.Tensor, g_idx: torch.Tensor) -> torch.Tensor:
    """The dense fp16 weight the kernels see: half(q - zero[g]) * scale[g], rounded to half."""
    g = g_idx.long()
    return (q - zero[g]).half() * scale[g]


def act_order_g_idx(k: int, group_size: int, gen: torch.Generator) -> torch.Tensor:
    """A GPTQ act-order g_idx: rows assigned to groups in a random order, group_size rows per group."""
    perm = torch.randperm(k, generator=gen)
    g = torch.empty(k, dtype=torch.int32)
    g[perm] = (torch.arange(k) // group_size).to(torch.int32)
    return g


# ---- references ----


def gptq_shuffle(q_weight: torch.Tensor, q_perm: torch.Tensor, bit: int) -> None:
    """vLLM gptq_shuffle: reorder rows by q_perm (if non-empty), then ExLlama-shuffle each word block, in place."""
    words = q_weight
    if q_perm.numel() > 0:
        vals = unpack_stream(words, bit, 0)[q_perm.long()]
        words = pack_stream(vals, bit, 0)
    q_weight.copy_(exllama_shuffle_words(words, bit))


def gptq_gemm(
    a: torch.Tensor,
    b_q_weight: torch.Tensor,
    b_gptq_qzeros: torch.Tensor,
    b_gptq_scales: torch.Tensor,
    b_g_idx: torch.Tensor,
    use_exllama: bool,
    use_v2_format: bool,
    bit: int,
) -> torch.Tensor:
    """vLLM gptq_gemm: a [M, K] fp16 @ dequant(GPTQ weight) [K, N] -> fp16 [M, N]."""
    words = b_q_weight
    k = words.shape[0] * 32 // bit
    groups = b_gptq_qzeros.shape[0]
    zero = unpack_stream(b_gptq_qzeros, bit, 1) + (0 if use_v2_format else 1)
    scale = b_gptq_scales
    if use_exllama:
        q = unpack_stream(exllama_unshuffle_words(words, bit), bit, 0)
        g = torch.arange(k, device=words.device) // (k // groups)
        w_sorted = dequantize_gptq(q, zero, scale, g)
        if b_g_idx.numel() > 0:
            w = torch.empty_like(w_sorted)
            w[b_g_idx.long()] = w_sorted
        else:
            w = w_sorted
    else:
        q = unpack_stream(words, bit, 0)
        w = dequantize_gptq(q, zero, scale, b_g_idx)
    return (a.float() @ w.float()).to(a.dtype)


# ---- input generators ----


def _dense_weight(k: int, n: int, gen: torch.Generator) -> torch.Tensor:
    # Scaled by 1/sqrt(K) so products stay O(1) whatever K is, and one tolerance fits every K.
    return torch.randn(k, n, generator=gen) / math.sqrt(k)


def make_gptq_problem(params: dict, gen: torch.Generator) -> dict:
    """Dense weight, its GPTQ quantization and packed tensors (standard, unshuffled layout)."""
    k, n, bit = int(params["k"]), int(params["n"]), int(params["bit"])
    gs = int(params.get("group_size", 128))
    gs = k if gs in (-1, 0) else gs
    groups = k // gs
    v2 = bool(params.get("use_v2_format", False))
    if params.get("act_order", False):
        g_idx = act_order_g_idx(k, gs, gen)
    else:
        g_idx = (torch.arange(k) // gs).to(torch.int32)
    w = _dense_weight(k, n, gen)
    q, zero, scale = quantize_gptq(w, bit, g_idx, groups, v2=v2)
    stored_zero = zero - (0 if v2 else 1)
    return {
        "w": w,
        "q": q,
        "zero": zero,
        "scale": scale,
        "g_idx": g_idx,
        "qweight": pack_stream(q, bit, 0),
        "qzeros": pack_stream(stored_zero, bit, 1),
        "w_dq": dequantize_gptq(q, zero, scale, g_idx),
    }


def make_gptq_shuffle_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for gptq_shuffle: a GPTQ-packed weight and, for act-order, q_perm = argsort(g_idx)."""
    gen = torch.Generator().manual_seed(seed)
    p = make_gptq_problem(params, gen)
    bit = int(params["bit"])
    if params.get("act_order", False):
        perm = torch.argsort(p["g_idx"], stable=True).to(torch.int32)
    else:
        perm = torch.empty(0, dtype=torch.int32)
    return {"q_weight": p["qweight"].to(device), "q_perm": perm.to(device), "bit": bit}


def make_gptq_gemm_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs for gptq_gemm: fp16 activations and a GPTQ weight prepared as vLLM's GPTQLinearMethod does."""
    gen = torch.Generator().manual_seed(seed)
    p = make_gptq_problem(params, gen)
    bit = int(params["bit"])
    m, k = int(params["m"]), int(params["k"])
    use_exllama = bool(params.get("use_exllama", True))
    qweight = p["qweight"]
    g_idx = p["g_idx"]
    if use_exllama:
        perm = (
            torch.argsort(g_idx, stable=True).to(torch.int32)
            if params.get("act_order", False)
            else torch.empty(0, dtype=torch.int32)
        )
        qweight = qweight.clone()
        gptq_shuffle(qweight, perm, bit)
        g_idx = perm
    a = torch.randn(m, k, generator=gen).half()
    return {
        "a": a.to(device),
        "b_q_weight": qweight.to(device),
        "b_gptq_qzeros": p["qzeros"].to(device),
        "b_gptq_scales": p["scale"].to(device),
        "b_g_idx": g_idx.to(device),
        "use_exllama": use_exllama,
        "use_v2_format": bool(params.get("use_v2_format", False)),
        "bit": bit,
    }


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)
# vLLM 0.33.0 dropped act-order from the GPTQ kernels: gptq_shuffle takes no q_perm and gptq_gemm no b_g_idx,
# so the groups are always k // groupsize. These are the 0.13.0 references with act-order off.


def gptq_shuffle_v033(q_weight: torch.Tensor, bit: int) -> None:
    """vLLM gptq_shuffle from 0.33.0: ExLlama-shuffle each word block in place (no row permutation)."""
    gptq_shuffle(q_weight, torch.empty(0, dtype=torch.int32, device=q_weight.device), bit)


def gptq_gemm_v033(a: torch.Tensor, b_q_weight: torch.Tensor, b_gptq_qzeros: torch.Tensor,
                   b_gptq_scales: torch.Tensor, use_exllama: bool, use_v2_format: bool, bit: int) -> torch.Tensor:
    """vLLM gptq_gemm from 0.33.0: a [M, K] fp16 @ dequant(GPTQ weight, group of row r = r // groupsize)."""
    k = b_q_weight.shape[0] * 32 // bit
    groups = b_gptq_qzeros.shape[0]
    if use_exllama:
        g_idx = torch.empty(0, dtype=torch.int32, device=b_q_weight.device)
    else:
        g_idx = (torch.arange(k, device=b_q_weight.device) // (k // groups)).to(torch.int32)
    return gptq_gemm(a, b_q_weight, b_gptq_qzeros, b_gptq_scales, g_idx, use_exllama, use_v2_format, bit)


def make_gptq_shuffle_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_gptq_shuffle_inputs without act-order and without q_perm."""
    x = make_gptq_shuffle_inputs({**params, "act_order": False}, seed=seed, device=device)
    return {"q_weight": x["q_weight"], "bit": x["bit"]}


def make_gptq_gemm_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_gptq_gemm_inputs without act-order and without b_g_idx."""
    x = make_gptq_gemm_inputs({**params, "act_order": False}, seed=seed, device=device)
    return {k: v for k, v in x.items() if k != "b_g_idx"}
