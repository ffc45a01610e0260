"""Independent checks of the vLLM block copy and cache gather references on CPU."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.reference_impls import vllm_cache_blocks as vb
from kernelgenbench.reference_impls import vllm_cache_gather as vg


@pytest.mark.parametrize("kvd", ["auto", "fp8"])
def test_copy_blocks_matches_explicit_copies(kvd):
    p = dict(num_mappings=6, num_layers=2, num_heads=4, head_size=64, block_size=8, dtype="bfloat16",
             kv_cache_dtype=kvd)
    a = vb.make_copy_blocks_inputs(p, seed=0, device="cpu")
    m = a["block_mapping"].tolist()
    assert len({d for _, d in m}) == 12 and not {s for s, _ in m} & {d for _, d in m}
    want_k = [c.clone() for c in a["key_caches"]]
    want_v = [c.clone() for c in a["value_caches"]]
    for s, d in m:
        for c in want_k + want_v:
            c[d].copy_(c[s])
    vb.copy_blocks(**a)
    for got, want in zip(a["key_caches"] + a["value_caches"], want_k + want_v, strict=True):
        assert torch.equal(got.view(torch.uint8), want.view(torch.uint8))
    assert a["key_caches"][0].dtype == (torch.uint8 if kvd == "fp8" else torch.bfloat16)


def test_copy_blocks_mla_matches_explicit_copies():
    a = vb.make_copy_blocks_mla_inputs(dict(block_size=16, num_blocks=8, num_layers=2, dtype="float32"),
                                       seed=1, device="cpu")
    want = [c.clone() for c in a["kv_caches"]]
    for s, d in a["block_mapping"].tolist():
        for c in want:
            c[d].copy_(c[s])
    vb.copy_blocks_mla(**a)
    assert all(torch.equal(g, w) for g, w in zip(a["kv_caches"], want, strict=True))
    assert a["block_mapping"].shape == (4, 2)


@pytest.mark.parametrize("mla", [False, True])
def test_swap_blocks_matches_explicit_copies(mla):
    p = dict(num_mappings=5, num_heads=2, head_size=64, block_size=8, dtype="float32", direction=["cuda", "cpu"])
    if mla:
        p["kv_lora_rank"] = 32
    a = vb.make_swap_blocks_inputs(p, seed=2, device="cpu")
    assert a["block_mapping"].device.type == "cpu"
    src, dst = a["src"].clone(), a["dst"].clone()
    vb.swap_blocks(**a)
    touched = set()
    for s, d in a["block_mapping"].tolist():
        assert torch.equal(a["dst"][d], src[s])
        touched.add(d)
    for blk in range(dst.shape[0]):
        if blk not in touched:
            assert torch.equal(a["dst"][blk], dst[blk])
    assert torch.equal(a["src"], src)


def _expected_gather(a, block_size, dequant=None):
    rows = []
    starts = a.get("seq_starts")
    cu = a["cu_seq_lens"].tolist()
    for b in range(len(cu) - 1):
        st = 0 if starts is None else int(starts[b])
        for i in range(cu[b + 1] - cu[b]):
            p = st + i
            entry = a["src_cache"][int(a["block_table"][b, p // block_size]), p % block_size]
            rows.append(entry if dequant is None else dequant(entry))
    return torch.stack(rows)


@pytest.mark.parametrize("kvd", ["auto", "fp8"])
@pytest.mark.parametrize("starts", [False, True])
def test_gather_and_maybe_dequant_cache_matches_loop(kvd, starts):
    p = dict(block_size=16, max_seq_len=40, min_seq_len=1, batch_size=3, dtype="float32", kv_cache_dtype=kvd,
             with_seq_starts=starts)
    a = vg.make_gather_and_maybe_dequant_cache_inputs(p, seed=4, device="cpu")
    deq = None if kvd == "auto" else (lambda e: e.view(torch.float8_e4m3fn).float() * 0.1)
    want = _expected_gather(a, 16, deq)
    vg.gather_and_maybe_dequant_cache(**a)
    assert torch.equal(a["dst"], want)
    assert a["dst"].shape[1] == 576


@pytest.mark.parametrize("starts", [False, True])
def test_cp_gather_cache_matches_loop(starts):
    p = dict(block_size=16, max_seq_len=50, batch_size=5, dtype="bfloat16", with_seq_starts=starts)
    a = vg.make_cp_gather_cache_inputs(p, seed=5, device="cpu")
    want = _expected_gather(a, 16)
    vg.cp_gather_cache(**a)
    assert torch.equal(a["dst"], want)


def test_cp_gather_indexer_k_quant_cache_matches_byte_loop():
    p = dict(batch_size=3, max_seq_len=70, block_size=16)
    a = vg.make_cp_gather_indexer_k_quant_cache_inputs(p, seed=6, device="cpu")
    cache = a["kv_cache"]
    cu = a["cu_seq_lens"].tolist()
    want_k, want_s = [], []
    for b in range(len(cu) - 1):
        for i in range(cu[b + 1] - cu[b]):
            blk = cache[int(a["block_table"][b, i // 16])].reshape(-1)
            o = i % 16
            want_k.append(blk[o * 128:(o + 1) * 128])
            want_s.append(blk[16 * 128 + 4 * o:16 * 128 + 4 * o + 4])
    vg.cp_gather_indexer_k_quant_cache(**a)
    assert torch.equal(a["dst_k"].view(torch.uint8), torch.stack(want_k))
    assert torch.equal(a["dst_scale"], torch.stack(want_s))
    assert (a["dst_scale"].view(torch.float32) > 0).all()
