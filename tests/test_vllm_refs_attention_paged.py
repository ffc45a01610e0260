"""Paged attention references against dense attention over the gathered cache, on CPU."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.reference_impls import vllm_paged_attention as pa


def _dense(a, keep_fn=None):
    """Dense softmax attention in float64 over each sequence's tokens, read token by token."""
    q, kc, vc = a["query"], a["key_cache"], a["value_cache"]
    seqs, heads, d = q.shape
    kv_heads, bs = kc.shape[1], kc.shape[3]
    fp8 = a["kv_cache_dtype"] != "auto"

    def load(t, sc):
        if not fp8:
            return t.double()
        return (t.contiguous().view(pa._FP8[a["kv_cache_dtype"]]).float() * sc).to(q.dtype).double()

    outs = torch.zeros(seqs, heads, d, dtype=torch.float64)
    for s in range(seqs):
        n = int(a["seq_lens"][s])
        blocks = torch.tensor([int(a["block_tables"][s, j // bs]) for j in range(n)])
        offs = torch.tensor([j % bs for j in range(n)])
        keys = load(kc[blocks, :, :, offs, :].reshape(n, kv_heads, d), a["k_scale"])  # [n, Hkv, d]
        vals = load(vc[blocks, :, :, offs], a["v_scale"])
        k = keys.repeat_interleave(heads // kv_heads, dim=1)  # [n, H, d]
        v = vals.repeat_interleave(heads // kv_heads, dim=1)
        logits = a["scale"] * torch.einsum("hd,nhd->hn", q[s].double(), k)
        if a["alibi_slopes"] is not None:
            logits = logits + a["alibi_slopes"].double()[:, None] * (torch.arange(n) - n + 1)[None, :]
        if keep_fn is not None:
            keep = torch.tensor([[keep_fn(h, j, n) for j in range(n)] for h in range(heads)])
            logits = logits.masked_fill(~keep, float("-inf"))
        outs[s] = torch.einsum("hn,nhd->hd", torch.softmax(logits, dim=-1), v)
    return outs


CASES = [
    dict(num_seqs=3, num_heads=[4, 4], head_size=32, block_size=16, dtype="float32", kv_cache_dtype="auto",
         max_seq_len=800, use_alibi=False),
    dict(num_seqs=3, num_heads=[8, 2], head_size=64, block_size=32, dtype="bfloat16", kv_cache_dtype="auto",
         max_seq_len=700, use_alibi=True),
    dict(num_seqs=2, num_heads=[4, 1], head_size=80, block_size=16, dtype="bfloat16", kv_cache_dtype="fp8",
         max_seq_len=600, use_alibi=False),
    dict(num_seqs=2, num_heads=[2, 2], head_size=32, block_size=8, dtype="float16", kv_cache_dtype="fp8_e5m2",
         max_seq_len=300, use_alibi=True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dtype']}-{c['kv_cache_dtype']}-{c['num_heads']}")
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_paged_attention_matches_dense(case, version):
    a = pa.make_paged_attention_inputs(dict(case, version=version), seed=7, device="cpu")
    assert torch.isnan(a["key_cache"].float()).any() or a["key_cache"].dtype == torch.uint8
    fn = pa.paged_attention_v1 if version == "v1" else pa.paged_attention_v2
    fn(**a)
    want = _dense(a)
    tol = 2e-3 if case["dtype"] == "float32" else 2e-2
    torch.testing.assert_close(a["out"].double(), want, atol=1e-4, rtol=tol)
    if version == "v2":
        lens = a["seq_lens"].tolist()
        for s, n in enumerate(lens):
            used = -(-n // 512)
            assert (a["exp_sums"][s, :, used:] == -7.0).all() and (a["tmp_out"][s, :, used:] == -7.0).all()
            assert (a["exp_sums"][s, :, :used] >= 1.0).all()


def test_paged_attention_blocksparse_matches_masked_dense():
    p = dict(num_seqs=2, num_heads=[4, 2], head_size=32, block_size=16, dtype="float32", kv_cache_dtype="auto",
             max_seq_len=900, blocksparse_local_blocks=2, blocksparse_vert_stride=3, blocksparse_block_size=32,
             blocksparse_head_sliding_step=1, tp_rank=1)
    a = pa.make_paged_attention_inputs(dict(p, version="v2"), seed=3, device="cpu")

    def keep(h, j, n):
        kb, qb = (j // 16) * 16 // 32, (n - 1) // 32
        return (kb + (1 * 4 + h) * 1 + 1) % 3 == 0 or kb > qb - 2

    pa.paged_attention_v2(**a)
    torch.testing.assert_close(a["out"].double(), _dense(a, keep), atol=2e-4, rtol=2e-3)
    b = dict(a, out=torch.full_like(a["out"], float("nan")))
    for k in ("exp_sums", "max_logits", "tmp_out"):
        b.pop(k)
    pa.paged_attention_v1(**b)
    torch.testing.assert_close(b["out"], a["out"], atol=1e-5, rtol=1e-4)


def test_paged_attention_v2_partition_stats():
    p = dict(num_seqs=2, num_heads=[2, 2], head_size=32, block_size=16, dtype="float32", kv_cache_dtype="auto",
             max_seq_len=1200, version="v2")
    a = pa.make_paged_attention_inputs(p, seed=11, device="cpu")
    pa.paged_attention_v2(**a)
    s, n = 1, int(a["seq_lens"][1])
    bs = 16
    for part in range(-(-n // 512)):
        for h in range(2):
            logits = []
            for j in range(part * 512, min(n, part * 512 + 512)):
                k = a["key_cache"][int(a["block_tables"][s, j // bs]), h, :, j % bs, :].reshape(-1)
                logits.append(a["scale"] * float(a["query"][s, h].double() @ k.double()))
            m = max(logits)
            assert float(a["max_logits"][s, h, part]) == pytest.approx(m, rel=1e-5, abs=1e-6)
            assert float(a["exp_sums"][s, h, part]) == pytest.approx(
                sum(torch.exp(torch.tensor(logits, dtype=torch.float64) - m).tolist()), rel=1e-5)
