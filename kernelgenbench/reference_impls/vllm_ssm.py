"""Reference for vLLM's Mamba selective scan at v0.13.0 (csrc/mamba/mamba_ssm/selective_scan_fwd.cu),
with an input generator.

Layouts: dense u, delta, z [batch, dim, seqlen], B and C [batch, groups, dstate, seqlen]; varlen (with
query_start_loc [batch + 1] int32) u, delta, z [dim, total], B and C [groups, dstate, total]. A [dim, dstate]
and the optional D, delta_bias [dim] are float32. Channel d uses group d // (dim / groups).
ssm_states [num_states, dim, dstate] (input dtype or float32).
Per sequence b and channel d, in float32: dt = delta + delta_bias, dt = softplus(dt) (for dt <= 20) when
delta_softplus; x_t = exp(dt_t * A) * x_{t-1} + dt_t * u_t * B_t, y_t = sum_n x_t C_t + D u_t.
The results are written in place: delta receives y (input dtype) and z, when given, y * silu(z).
State: the cache slot is cache_indices[b] (b without cache_indices); a slot equal to pad_slot_id skips the
sequence entirely (its outputs are not written). x_0 = ssm_states[slot] when has_initial_state[b], else 0;
the final x is written to ssm_states[slot].
Prefix caching (block_idx_first_scheduled_token given; cache_indices [batch, max_blocks]): the sequence is
scanned in chunks of block_size tokens, the initial state is read from slot
cache_indices[b, initial_state_idx[b]] and the state after chunk c is written to
cache_indices[b, block_idx_first_scheduled_token[b] + c], the last chunk's to
cache_indices[b, block_idx_last_scheduled_token[b]]. The padding test still reads the flat
cache_indices[b]. 0.13.0's kernel only tiles chunks consistently for block_size 1024 in this mode.
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype


def _scan(u, dt_raw, A, B, C, D, z, delta_bias, softplus, x0, chunk):
    """Scan one sequence: u, dt_raw, z [dim, L]; B, C [dim, dstate, L] (per channel). Returns y (float32),
    y gated by z (or None) and the state after every chunk of `chunk` tokens."""
    dt = dt_raw.float()
    if delta_bias is not None:
        dt = dt + delta_bias.float()[:, None]
    if softplus:
        dt = torch.where(dt <= 20.0, torch.log1p(torch.exp(dt)), dt)
    uf = u.float()
    Af = A.float()
    x = x0.float().clone()
    ys = torch.empty_like(uf)
    states = []
    length = uf.shape[1]
    Bf, Cf = B.float(), C.float()
    for t in range(length):
        x = torch.exp(dt[:, t, None] * Af) * x + (dt[:, t] * uf[:, t])[:, None] * Bf[:, :, t]
        ys[:, t] = (x * Cf[:, :, t]).sum(-1)
        if (t + 1) % chunk == 0 or t + 1 == length:
            states.append(x.clone())
    if D is not None:
        ys = ys + D.float()[:, None] * uf
    gated = None if z is None else ys * (z.float() / (1.0 + torch.exp(-z.float())))
    return ys, gated, states


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc, cache_indices,
                       has_initial_state, ssm_states, pad_slot_id, block_size, block_idx_first_scheduled_token,
                       block_idx_last_scheduled_token, initial_state_idx, _skip=None):
    """Selective scan over every (non-padding) sequence, writing delta, z and ssm_states in place.

    _skip (not a schema argument): a predicate on the batch index replacing the pad_slot_id rule, for the
    later schema's null-block rule (selective_scan_fwd_v033)."""
    varlen = query_start_loc is not None
    dim = u.shape[0] if varlen else u.shape[1]
    groups = B.shape[0] if varlen else B.shape[1]
    per_group = dim // groups
    apc = block_idx_first_scheduled_token is not None
    if varlen:
        qsl = query_start_loc.tolist()
        spans = [(qsl[b], qsl[b + 1]) for b in range(len(qsl) - 1)]
    else:
        spans = [(b, None) for b in range(u.shape[0])]
    flat_idx = None if cache_indices is None else cache_indices.reshape(-1).tolist()
    for b, (start, end) in enumerate(spans):
        slot = b if flat_idx is None else flat_idx[b]
        if (_skip(b) if _skip is not None else slot == pad_slot_id):
            continue
        if varlen:
            sel = (slice(None), slice(start, end))
            ub, db = u[sel], delta[sel]
            zb = None if z_ is None else z_[sel]
            Bb, Cb = B[:, :, start:end], C[:, :, start:end]
        else:
            ub, db = u[b], delta[b]
            zb = None if z_ is None else z_[b]
            Bb, Cb = B[b], C[b]
        Bd = Bb.repeat_interleave(per_group, dim=0)  # [dim, dstate, L]
        Cd = Cb.repeat_interleave(per_group, dim=0)
        init = bool(has_initial_state[b]) if has_initial_state is not None else False
        if apc:
            row = cache_indices[b].tolist()
            load = row[int(initial_state_idx[b])]
        else:
            load = slot
        x0 = ssm_states[load].float() if init else torch.zeros(dim, A.shape[1], device=u.device)
        if ub.shape[1] == 0:  # no chunk runs, so nothing is written
            continue
        chunk = int(block_size) if apc else ub.shape[1]
        y, gated, states = _scan(ub, db, A, Bd, Cd, D_, zb, delta_bias_, bool(delta_softplus), x0, chunk)
        db.copy_(y.to(db.dtype))
        if zb is not None:
            zb.copy_(gated.to(zb.dtype))
        if apc:
            first, last = int(block_idx_first_scheduled_token[b]), int(block_idx_last_scheduled_token[b])
            for c, st in enumerate(states):
                target = row[last] if c == len(states) - 1 else row[first + c]
                ssm_states[target] = st.to(ssm_states.dtype)
        else:
            ssm_states[slot] = states[-1].to(ssm_states.dtype)
    return None


# ---------------------------------------------------------------------------------------------- inputs


def make_selective_scan_fwd_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Inputs as vLLM's selective-scan tests draw them. varlen (default): the sequence of `seqlen` tokens is
    split at random points into batch_size (+3 padding entries when with_padding) sequences, each with a
    random distinct state slot (padding entries get pad_slot_id -1) and a random has_initial_state;
    unused state slots are garbage that must stay untouched. Dense: one call on [batch, dim, seqlen]."""
    gen = torch.Generator().manual_seed(seed)
    seqlen, dim, dstate = int(params["seqlen"]), int(params.get("dim", 4)), int(params.get("dstate", 8))
    groups = int(params.get("varBC_groups", 1))
    itype = _dtype(params.get("itype", "float32"))
    state_dtype = _dtype(params.get("state_dtype", params.get("itype", "float32")))
    varlen = bool(params.get("varlen", True))
    pad = 3 if params.get("with_padding", False) else 0
    batch = int(params.get("batch_size", 4 if seqlen >= 10 else 1)) if varlen else int(params.get("batch_size", 1))
    if varlen and pad and seqlen < batch + pad:
        pad = 0  # vLLM's test skips this point; keep a valid unpadded draw instead
    A = -0.5 * torch.rand(dim, dstate, generator=gen)

    def rnd(*shape, scale=1.0, positive=False):
        t = torch.rand(*shape, generator=gen) if positive else torch.randn(*shape, generator=gen)
        return (t * scale).to(itype)

    D = torch.randn(dim, generator=gen) if params.get("has_D", True) else None
    bias = 0.5 * torch.rand(dim, generator=gen) if params.get("has_delta_bias", True) else None
    has_z = params.get("has_z", True)
    pad_slot_id = -1
    if varlen:
        n = batch + pad
        cuts = torch.randperm(seqlen - 1, generator=gen)[: n - 1].sort().values + 1 if n > 1 else torch.tensor([])
        qsl = torch.cat([torch.tensor([0]), cuts.long(), torch.tensor([seqlen])]).to(torch.int32)
        u, delta = rnd(dim, seqlen), rnd(dim, seqlen, scale=0.5, positive=True)
        B, C = rnd(groups, dstate, seqlen), rnd(groups, dstate, seqlen)
        z = rnd(dim, seqlen) if has_z else None
        entries = batch * 10
        slots = torch.randperm(entries, generator=gen)[:batch].to(torch.int32)
        cache_indices = torch.cat([slots, torch.full((pad,), pad_slot_id, dtype=torch.int32)])
        has_init = torch.randint(0, 2, (n,), generator=gen).bool()
        states = torch.randn(entries, dim, dstate, generator=gen).to(state_dtype)
    else:
        qsl, cache_indices = None, None
        u, delta = rnd(batch, dim, seqlen), rnd(batch, dim, seqlen, scale=0.5, positive=True)
        B, C = rnd(batch, groups, dstate, seqlen), rnd(batch, groups, dstate, seqlen)
        z = rnd(batch, dim, seqlen) if has_z else None
        has_init = torch.ones(batch, dtype=torch.bool) if params.get("has_initial_state", True) else None
        states = torch.randn(batch, dim, dstate, generator=gen).to(state_dtype)
    out = dict(u=u, delta=delta, A=A, B=B, C=C, D_=D, z_=z, delta_bias_=bias,
               delta_softplus=bool(params.get("delta_softplus", True)), query_start_loc=qsl,
               cache_indices=cache_indices, has_initial_state=has_init, ssm_states=states,
               pad_slot_id=pad_slot_id, block_size=int(params.get("block_size", 2048)),
               block_idx_first_scheduled_token=None, block_idx_last_scheduled_token=None, initial_state_idx=None)
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in out.items()}


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)


def selective_scan_fwd_v033(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc,
                            cache_indices, has_initial_state, ssm_states, null_block_id, block_size,
                            block_idx_first_scheduled_token, block_idx_last_scheduled_token, initial_state_idx,
                            cu_chunk_seqlen, last_chunk_indices):
    """selective_scan_fwd as vLLM 0.33.0 on has it: a sequence is skipped when its cache index is
    null_block_id (0.13.0's pad_slot_id), the cache index read at initial_state_idx under prefix caching.

    Explicit chunk metadata (cu_chunk_seqlen with last_chunk_indices) is outside this reference: it raises;
    without it the chunks are block_size tokens, as in 0.13.0.
    """
    if cu_chunk_seqlen is not None and last_chunk_indices is not None:
        raise NotImplementedError("selective_scan_fwd with cu_chunk_seqlen / last_chunk_indices has no reference")
    skip = None
    if cache_indices is not None:
        if block_idx_first_scheduled_token is not None:  # prefix caching: [batch, max_blocks] indices
            rows, at = cache_indices.tolist(), initial_state_idx.tolist()
            skip = lambda b: rows[b][int(at[b])] == null_block_id  # noqa: E731
        else:
            flat = cache_indices.reshape(-1).tolist()
            skip = lambda b: flat[b] == null_block_id  # noqa: E731
    return selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc, cache_indices,
                              has_initial_state, ssm_states, null_block_id, block_size,
                              block_idx_first_scheduled_token, block_idx_last_scheduled_token, initial_state_idx,
                              _skip=skip if skip is not None else (lambda b: False))


def make_selective_scan_fwd_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_selective_scan_fwd_inputs with pad_slot_id passed as null_block_id and no chunk metadata."""
    x = make_selective_scan_fwd_inputs(params, seed=seed, device=device)
    out = {k: v for k, v in x.items() if k != "pad_slot_id"}
    keys = list(x)
    ordered = {}
    for k in keys:
        ordered["null_block_id" if k == "pad_slot_id" else k] = x[k] if k == "pad_slot_id" else out[k]
    return {**ordered, "cu_chunk_seqlen": None, "last_chunk_indices": None}
