"""merge_attn_states against attention over the concatenated keys; vertical/slash index coverage checks."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.reference_impls import vllm_attention as va


def _attn(q, k, v):
    logits = torch.einsum("thd,nhd->htn", q, k)  # [H, T, N]
    return torch.einsum("htn,nhd->thd", torch.softmax(logits, -1), v), torch.logsumexp(logits, -1)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_merge_equals_attention_over_all_keys(dtype):
    g = torch.Generator().manual_seed(0)
    t, h, d = 5, 3, 16
    q = torch.randn(t, h, d, generator=g, dtype=torch.float64)
    k = torch.randn(12, h, d, generator=g, dtype=torch.float64)
    v = torch.randn(12, h, d, generator=g, dtype=torch.float64)
    whole, whole_lse = _attn(q, k, v)
    pre, pre_lse = _attn(q, k[:7], v[:7])
    suf, suf_lse = _attn(q, k[7:], v[7:])
    out, out_lse = torch.empty(t, h, d, dtype=dtype), torch.empty(h, t)
    va.merge_attn_states(out, out_lse, pre.to(dtype), pre_lse.float(), suf.to(dtype), suf_lse.float())
    torch.testing.assert_close(out.double(), whole, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(out_lse.double(), whole_lse, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_merge_inf_edge_cases(dtype):
    a = va.make_merge_attn_states_inputs(dict(num_tokens=256, num_query_heads=4, head_size=32,
                                              output_dtype=dtype), seed=1, device="cpu")
    va.merge_attn_states(**a)
    p, s = a["prefix_lse"], a["suffix_lse"]
    assert (p == math.inf).any() and (s == math.inf).any() and ((p == -math.inf) & (s == -math.inf)).any()
    assert not torch.isnan(a["output"]).any() and not torch.isnan(a["output_lse"]).any()
    for hh in range(4):
        for tt in range(256):
            pl, sl = float(p[hh, tt]), float(s[hh, tt])
            pl, sl = (-math.inf if math.isinf(pl) else pl), (-math.inf if math.isinf(sl) else sl)
            if pl == -math.inf and sl == -math.inf:
                assert torch.equal(a["output"][tt, hh], a["prefix_output"][tt, hh])
                assert a["output_lse"][hh, tt] == -math.inf
            elif sl == -math.inf:
                assert torch.equal(a["output"][tt, hh], a["prefix_output"][tt, hh])
                assert float(a["output_lse"][hh, tt]) == pytest.approx(pl)
            elif pl == -math.inf:
                assert torch.equal(a["output"][tt, hh], a["suffix_output"][tt, hh])


def _covered(offsets, n, bn):
    cov = set()
    for o in offsets:
        cov.update(range(o, o + bn))
    return cov


@pytest.mark.parametrize("causal", [True, False])
def test_vertical_slash_index_covers_the_pattern(causal):
    p = dict(batch_size=2, num_heads=2, context_size=300, nnz_vertical=6, nnz_slash=8, block_size_M=64,
             block_size_N=64, causal=causal)
    a = va.make_convert_vertical_slash_indexes_inputs(p, seed=2, device="cpu")
    args = list(a.values())
    va.convert_vertical_slash_indexes(*args)  # positional: the schema repeats the name q_seqlens
    for b in range(2):
        q_len, kv_len = int(a["q_seqlens"][b]), int(a["kv_seqlens"][b])
        for h in range(2):
            verts = a["vertical_indexes"][b, h].tolist()
            for r in range((300 + 63) // 64):
                cnt, ccnt = int(a["block_count"][b, h, r]), int(a["column_count"][b, h, r])
                if r * 64 >= q_len:
                    assert cnt == 0 and ccnt == 0
                    continue
                offs = a["block_offset"][b, h, r, :cnt].tolist()
                cols = a["column_index"][b, h, r, :ccnt].tolist()
                assert offs == sorted(set(offs)) and all(0 <= o < kv_len for o in offs)
                assert cols == sorted(cols) and set(cols) <= set(verts)
                cov = _covered(offs, kv_len, 64)
                assert not set(cols) & cov  # a column inside a block range is never listed twice
                if causal:
                    end_m = r * 64 + 64 + kv_len - q_len
                    assert set(range(end_m - 64, min(end_m, kv_len))) <= cov  # the diagonal block
                    for v in verts:
                        if v < end_m - 64:
                            assert v in cov or v in cols


def test_vertical_slash_index_small_example():
    # One row block of 4 queries over 8 keys; slash 0 is the main diagonal, vertical 1 a column.
    i32 = torch.int32
    bc, cc = torch.zeros(1, 1, 2, dtype=i32), torch.zeros(1, 1, 2, dtype=i32)
    bo, ci = torch.zeros(1, 1, 2, 1, dtype=i32), torch.zeros(1, 1, 2, 1, dtype=i32)
    va.convert_vertical_slash_indexes(bc, bo, cc, ci, torch.tensor([8], dtype=i32), torch.tensor([8], dtype=i32),
                                      torch.tensor([[[1]]], dtype=i32), torch.tensor([[[0]]], dtype=i32),
                                      8, 4, 4, True)
    # row 0 (queries 0-3): diagonal range [0, 4) covers column 1; row 1 (queries 4-7): range [4, 8) + column 1
    assert bc.tolist() == [[[1, 1]]] and bo[0, 0, :, 0].tolist() == [0, 4]
    assert cc.tolist() == [[[0, 1]]] and ci[0, 0, 1, 0] == 1
