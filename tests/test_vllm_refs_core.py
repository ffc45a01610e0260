"""The vLLM 0.13.0 core references (norm, activation quant, rope, MoE, sampling, indexing), each checked
against an independent formulation on CPU, plus the curated entries that feed them."""

from __future__ import annotations

import importlib
import math
from importlib import resources

import pytest
import torch
import torch.nn.functional as F
import yaml

from kernelgenbench.evaluator.cost import workload_cost
from kernelgenbench.reference_impls import vllm_misc as X
from kernelgenbench.reference_impls import vllm_moe as M
from kernelgenbench.reference_impls import vllm_norm as N
from kernelgenbench.reference_impls import vllm_quant_act as Q
from kernelgenbench.reference_impls import vllm_rope as R

CPU = "cpu"


def _entries() -> dict:
    text = resources.files("kernelgenbench.data").joinpath("vllm_curated_core.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["ops"]


# ------------------------------------------------------------------------------------------- norm


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("strided", [False, True])
def test_rms_norm_matches_torch_rms_norm(dtype, strided):
    a = N.make_rms_norm_inputs({"num_tokens": 7, "hidden_size": 769, "dtype": dtype, "strided_input": strided},
                               seed=3, device=CPU)
    assert a["input"].is_contiguous() != strided
    assert N.rms_norm(**a) is None
    x, w = a["input"], a["weight"]
    expected = F.rms_norm(x.double(), (x.shape[-1],), w.double(), eps=a["epsilon"])
    tol = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5}[dtype]
    torch.testing.assert_close(a["result"].double(), expected, atol=tol, rtol=tol)


def test_fused_add_rms_norm_is_add_then_rms_norm():
    a = N.make_fused_add_rms_norm_inputs({"num_tokens": 9, "hidden_size": 768, "dtype": "bfloat16",
                                          "strided_input": True}, seed=1, device=CPU)
    x0, r0 = a["input"].clone(), a["residual"].clone()
    N.fused_add_rms_norm(**a)
    added = x0 + r0
    torch.testing.assert_close(a["residual"], added, atol=0, rtol=0)
    out = torch.empty_like(added)
    N.rms_norm(out, added, a["weight"], a["epsilon"])
    torch.testing.assert_close(a["input"], out, atol=0, rtol=0)
    expected = F.rms_norm(added.double(), (768,), a["weight"].double(), eps=a["epsilon"])
    torch.testing.assert_close(a["input"].double(), expected, atol=1.6e-2, rtol=1.6e-2)


def _dequant_bound(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """Largest error of round-to-nearest at each element: half a quantisation step."""
    if q.dtype == torch.int8:
        return 0.5 * scale.expand_as(q.float()) * 1.0001
    # fp8 e4m3: 3 mantissa bits -> half a step is <= 2^-4 relative; subnormals step 2^-9 absolute.
    return (q.float().abs() * 2.0**-4 + 2.0**-10) * scale * 1.0001


@pytest.mark.parametrize("quant_dtype", ["int8", "float8_e4m3fn"])
@pytest.mark.parametrize("add_residual", [False, True])
def test_rms_norm_dynamic_per_token_quant_dequantizes_to_rms_norm(quant_dtype, add_residual):
    p = {"num_tokens": 5, "hidden_size": 1027, "dtype": "bfloat16", "quant_dtype": quant_dtype,
         "add_residual": add_residual}
    a = N.make_rms_norm_dynamic_per_token_quant_inputs(p, seed=2, device=CPU)
    x0 = a["input"].clone()
    r0 = a["residual"].clone() if add_residual else None
    N.rms_norm_dynamic_per_token_quant(**a)
    xs = x0.float() + (r0.float() if add_residual else 0.0)
    if add_residual:
        torch.testing.assert_close(a["residual"], xs.to(torch.bfloat16), atol=0, rtol=0)
    y = F.rms_norm(xs.double(), (1027,), a["weight"].double(), eps=a["epsilon"])
    qmax = 127.0 if quant_dtype == "int8" else 448.0
    torch.testing.assert_close(a["scale"].double(), y.abs().amax(-1, keepdim=True) / qmax, rtol=1e-2, atol=0)
    deq = a["result"].float() * a["scale"]
    bound = _dequant_bound(a["result"], a["scale"]) + y.abs() * 2**-7  # + the bf16 rounding of y
    assert bool(((deq.double() - y).abs() <= bound).all())
    assert int(a["result"].float().abs().amax()) == int(qmax)  # the absmax element maps to qmax


def test_rms_norm_dynamic_per_token_quant_scale_ub_caps_the_scale():
    p = {"num_tokens": 4, "hidden_size": 256, "dtype": "float32", "quant_dtype": "float8_e4m3fn",
         "has_scale_ub": True}
    a = N.make_rms_norm_dynamic_per_token_quant_inputs(p, seed=0, device=CPU)
    N.rms_norm_dynamic_per_token_quant(**a)
    assert torch.allclose(a["scale"], (a["scale_ub"] / 448.0).expand_as(a["scale"]))
    assert float(a["result"].float().abs().amax()) == 448.0  # values past the cap saturate


def test_rms_norm_per_block_quant_groups_and_transposed_layout():
    p = {"num_tokens": 6, "hidden_size": 1025, "dtype": "bfloat16", "quant_dtype": "int8", "group_size": [1, 64]}
    a = N.make_rms_norm_per_block_quant_inputs(p, seed=4, device=CPU)
    assert a["input"].shape[-1] == 1024 and a["scale"].shape == (6, 16)
    b = N.make_rms_norm_per_block_quant_inputs({**p, "is_scale_transposed": True}, seed=4, device=CPU)
    assert b["scale"].stride() == (1, 6)
    x0 = a["input"].clone()
    N.rms_norm_per_block_quant(**a)
    N.rms_norm_per_block_quant(**b)
    torch.testing.assert_close(a["result"], b["result"], atol=0, rtol=0)
    torch.testing.assert_close(a["scale"], b["scale"], atol=0, rtol=0)  # same values, other memory order
    y = F.rms_norm(x0.double(), (1024,), a["weight"].double(), eps=a["epsilon"])
    per_group = y.view(6, 16, 64).abs().amax(-1) / 127.0
    torch.testing.assert_close(a["scale"].double(), per_group, rtol=1e-2, atol=0)
    deq = a["result"].float() * a["scale"].repeat_interleave(64, dim=1)
    bound = 0.5 * a["scale"].repeat_interleave(64, dim=1) * 1.0001 + y.abs() * 2**-7
    assert bool(((deq.double() - y).abs() <= bound).all())


# ------------------------------------------------------------------------------------------- activation quant


def test_int8_rounds_half_to_even_like_cvt_rni():
    x = torch.tensor([[0.5, 1.5, 2.5, -0.5, -2.5, 300.0, -300.0]], dtype=torch.float32)
    out = torch.empty(x.shape, dtype=torch.int8)
    Q.static_scaled_int8_quant(out, x, torch.tensor([1.0]), None)
    assert out.tolist() == [[0, 2, 2, 0, -2, 127, -128]]  # away-from-zero would give 1, 3, -1, -3


def test_static_int8_azp_saturates_like_the_vllm_test():
    big = float(torch.iinfo(torch.int32).max)
    x = torch.tensor([[math.nextafter(big, math.inf), big + 1, big, big - 1, math.nextafter(big, -math.inf)]])
    out = torch.empty(x.shape, dtype=torch.int8)
    Q.static_scaled_int8_quant(out, x, torch.tensor(1.0), torch.tensor(0, dtype=torch.int32))
    assert out.tolist() == [[127] * 5]


@pytest.mark.parametrize("azp", [None, -255, 54])
def test_static_scaled_int8_quant_matches_the_test_formula(azp):
    a = Q.make_static_scaled_int8_quant_inputs({"num_tokens": 7, "hidden_size": 1025, "dtype": "float32",
                                                "scale": 2.1, "azp": azp}, seed=0, device=CPU)
    Q.static_scaled_int8_quant(**a)
    s = a["scale"]
    expected = ((a["input"] / s).round() + (0 if azp is None else azp)).clamp(-128, 127).to(torch.int8)
    diff = (a["result"].int() - expected.int()).abs()
    assert int(diff.max()) <= 1 and float((diff > 0).float().mean()) < 1e-3  # 1/s vs /s on rare ties


@pytest.mark.parametrize("symmetric", [True, False])
def test_dynamic_scaled_int8_quant_dequantizes(symmetric):
    a = Q.make_dynamic_scaled_int8_quant_inputs({"num_tokens": 7, "hidden_size": 1026, "dtype": "bfloat16",
                                                 "symmetric": symmetric}, seed=5, device=CPU)
    Q.dynamic_scaled_int8_quant(**a)
    x = a["input"].float()
    if symmetric:
        torch.testing.assert_close(a["scale"], x.abs().amax(-1, keepdim=True) / 127.0)
        deq = a["result"].float() * a["scale"]
    else:
        mn, mx = x.amin(-1, keepdim=True), x.amax(-1, keepdim=True)
        s = (mx - mn) / 255.0
        torch.testing.assert_close(a["scale"], s)
        torch.testing.assert_close(a["azp"], torch.round(-128.0 - mn / s).int(), atol=1, rtol=0)
        deq = (a["result"].float() - a["azp"].float()) * a["scale"]
        assert int(a["result"].min()) == -128 and int(a["result"].max()) == 127  # the range is used fully
    assert bool(((deq - x).abs() <= 0.5 * a["scale"] * 1.001 + 1e-6).all())


def test_static_scaled_fp8_quant_dequantizes_and_saturates():
    a = Q.make_static_scaled_fp8_quant_inputs({"num_tokens": 7, "hidden_size": 769, "dtype": "bfloat16",
                                               "scale": 0.004}, seed=0, device=CPU)
    Q.static_scaled_fp8_quant(**a)
    x, s, q = a["input"].float(), a["scale"], a["result"].float()
    inside = (x / s).abs() < 448
    assert bool((q[~inside].abs() == 448).all()) and int((~inside).sum()) > 0
    assert bool(((q * s - x).abs() <= _dequant_bound(a["result"], s))[inside].all())


def test_dynamic_fp8_quants_pick_absmax_scales():
    a = Q.make_dynamic_scaled_fp8_quant_inputs({"num_tokens": 7, "hidden_size": 1025, "dtype": "float32"},
                                               seed=1, device=CPU)
    Q.dynamic_scaled_fp8_quant(**a)
    torch.testing.assert_close(a["scale"], (a["input"].abs().amax() / 448).reshape(1), atol=0, rtol=0)
    assert float(a["result"].float().abs().amax()) == 448.0
    assert bool(((a["result"].float() * a["scale"] - a["input"]).abs()
                 <= _dequant_bound(a["result"], a["scale"])).all())
    b = Q.make_dynamic_per_token_scaled_fp8_quant_inputs({"num_tokens": 7, "hidden_size": 1025,
                                                          "dtype": "bfloat16", "scale_ub": True}, seed=1, device=CPU)
    Q.dynamic_per_token_scaled_fp8_quant(**b)
    x = b["input"].float()
    expected = torch.clamp_min(torch.minimum(x.abs().amax(-1, keepdim=True), b["scale_ub"]) / 448, 1 / (448 * 512))
    torch.testing.assert_close(b["scale"], expected, atol=0, rtol=0)
    inside = (x / b["scale"]).abs() < 448
    assert bool(((b["result"].float() * b["scale"] - x).abs() <= _dequant_bound(b["result"], b["scale"]))[inside].all())


@pytest.mark.parametrize("which", ["static", "dynamic", "per_token"])
def test_fp8_quants_leave_padding_rows_and_read_strided_rows(which):
    gen = {"static": Q.make_static_scaled_fp8_quant_inputs, "dynamic": Q.make_dynamic_scaled_fp8_quant_inputs,
           "per_token": Q.make_dynamic_per_token_scaled_fp8_quant_inputs}[which]
    fn = {"static": Q.static_scaled_fp8_quant, "dynamic": Q.dynamic_scaled_fp8_quant,
          "per_token": Q.dynamic_per_token_scaled_fp8_quant}[which]
    p = {"num_tokens": 5, "hidden_size": 33, "dtype": "bfloat16"}
    plain = gen(p, seed=3, device=CPU)
    odd = gen({**p, "num_token_padding": 9, "strided_input": True}, seed=3, device=CPU)
    assert odd["result"].shape == (9, 33) and not odd["input"].is_contiguous()
    assert torch.equal(odd["input"], plain["input"])
    fn(**plain)
    fn(**odd)
    assert torch.equal(odd["result"][:5].float(), plain["result"].float())
    assert bool(torch.isnan(odd["result"][5:].float()).all())  # the padding rows are never written
    if which == "per_token":
        assert torch.equal(odd["scale"][:5], plain["scale"]) and bool(torch.isnan(odd["scale"][5:]).all())


# ------------------------------------------------------------------------------------------- rope


def _rope_complex(x: torch.Tensor, pos: torch.Tensor, rot: int, is_neox: bool, base: float) -> torch.Tensor:
    """Rotation as complex multiplication by exp(i * pos * base^(-2j/rot)), in float64, from scratch."""
    x = x.double().clone()
    freqs = base ** (-torch.arange(0, rot, 2, dtype=torch.float64) / rot)
    angle = pos.double().reshape(*pos.shape, *([1] * (x.dim() - pos.dim() - 1)), 1) * freqs
    part = x[..., :rot]
    if is_neox:
        z = torch.complex(part[..., : rot // 2], part[..., rot // 2:])
    else:
        z = torch.complex(part[..., 0::2], part[..., 1::2])
    z = z * torch.polar(torch.ones_like(angle), angle)
    if is_neox:
        x[..., :rot] = torch.cat([z.real, z.imag], dim=-1)
    else:
        x[..., :rot] = torch.stack([z.real, z.imag], dim=-1).flatten(-2)
    return x


@pytest.mark.parametrize("is_neox", [True, False])
@pytest.mark.parametrize("layout,rotary_dim,use_key", [("batch", None, True), ("flat", 32, False),
                                                       ("padded", 32, True)])
def test_rotary_embedding_matches_complex_rotation(is_neox, layout, rotary_dim, use_key):
    p = {"batch_size": 2, "seq_len": 5, "num_heads": 3, "head_size": 80, "rotary_dim": rotary_dim,
         "dtype": "float32", "layout": layout, "use_key": use_key, "is_neox": is_neox}
    a = R.make_rotary_embedding_inputs(p, seed=0, device=CPU)
    rot = a["cos_sin_cache"].shape[1]
    q0 = a["query"].clone()
    k0 = a["key"].clone() if use_key else None
    if layout == "padded":
        pad_before = a["query"].as_strided((2, 5, 3, 64), a["query"].stride(), a["query"].storage_offset() + 80).clone()
    R.rotary_embedding(**a)
    heads = (2, 5, 3, 80)
    for before, after in ((q0, a["query"]), (k0, a["key"])):
        if before is None:
            assert after is None
            continue
        expected = _rope_complex(before.reshape(heads), a["positions"], rot, is_neox, 10000.0)
        # atol: the cache's fp32 angles (pos * freq, pos up to 8192) are off by up to ~5e-4 rad.
        torch.testing.assert_close(after.reshape(heads).double(), expected, atol=3e-3, rtol=1e-3)
    if layout == "padded":  # the padding beyond head_size is never written
        after_pad = a["query"].as_strided((2, 5, 3, 64), a["query"].stride(), a["query"].storage_offset() + 80)
        torch.testing.assert_close(after_pad, pad_before, atol=0, rtol=0)


@pytest.mark.parametrize("is_neox", [True, False])
def test_fused_qk_norm_rope_is_per_head_rms_norm_then_rope(is_neox):
    a = R.make_fused_qk_norm_rope_inputs({"dtype": "bfloat16", "is_neox": is_neox, "num_tokens": 5,
                                          "num_heads": 4, "num_kv_heads": 2, "head_dim": 64}, seed=2, device=CPU)
    qkv0 = a["qkv"].clone()
    R.fused_qk_norm_rope(**a)
    heads = qkv0.view(5, 8, 64).double()
    q = F.rms_norm(heads[:, :4], (64,), a["q_weight"].double(), eps=a["eps"])
    k = F.rms_norm(heads[:, 4:6], (64,), a["k_weight"].double(), eps=a["eps"])
    pos = a["position_ids"]
    expected_q = _rope_complex(q, pos, 64, is_neox, 10000.0)
    expected_k = _rope_complex(k, pos, 64, is_neox, 10000.0)
    out = a["qkv"].view(5, 8, 64).double()
    torch.testing.assert_close(out[:, :4], expected_q, atol=3e-2, rtol=2e-2)
    torch.testing.assert_close(out[:, 4:6], expected_k, atol=3e-2, rtol=2e-2)
    torch.testing.assert_close(a["qkv"].view(5, 8, 64)[:, 6:], qkv0.view(5, 8, 64)[:, 6:], atol=0, rtol=0)


# ------------------------------------------------------------------------------------------- moe routing


@pytest.mark.parametrize("renormalize", [False, True])
def test_topk_softmax_matches_softmax_then_topk(renormalize):
    a = M.make_topk_softmax_inputs({"num_tokens": 33, "num_experts": 64, "topk": 6, "dtype": "float32",
                                    "renormalize": renormalize}, seed=0, device=CPU)
    M.topk_softmax(**a)
    p = torch.softmax(a["gating_output"].double(), dim=-1)
    w, idx = torch.topk(p, 6, dim=-1)
    if renormalize:
        w = w / w.sum(-1, keepdim=True)
    assert torch.equal(a["topk_indices"].long(), idx)  # N(0,1) fp32 logits: no ties
    torch.testing.assert_close(a["topk_weights"].double(), w, atol=1e-6, rtol=1e-5)
    assert a["token_expert_indices"][3, 2].item() == 2 * 33 + 3


def test_topk_softmax_breaks_ties_to_the_lower_expert():
    g = torch.tensor([[1.0, 3.0, 3.0, 0.0, 3.0]])
    w, i, s = torch.empty(1, 2), torch.empty(1, 2, dtype=torch.int32), torch.empty(1, 2, dtype=torch.int32)
    M.topk_softmax(w, i, s, g, False)
    assert i.tolist() == [[1, 2]]


def _grouped_topk_loop(scores, n_group, topk_group, topk, renormalize, routed_scaling_factor, bias, scoring_func):
    """Per token in float64 with python sorting: the algorithm as vLLM's grouped_topk (fused_moe.py) spells it."""
    vals, ids = [], []
    for row in scores.double().tolist():
        s = [0.5 * math.tanh(0.5 * v) + 0.5 for v in row] if scoring_func == 1 else row
        choice = [a + b for a, b in zip(s, bias.double().tolist(), strict=True)]
        per = len(row) // n_group
        gs = [sum(sorted(choice[g * per:(g + 1) * per], reverse=True)[:2]) for g in range(n_group)]
        groups = sorted(range(n_group), key=lambda g: (-gs[g], g))[:topk_group]
        cand = [e for g in groups for e in range(g * per, (g + 1) * per)]
        pick = sorted(cand, key=lambda e: (-choice[e], e))[:topk]
        w = [s[e] for e in pick]
        if renormalize:
            w = [v / sum(w) for v in w]
        vals.append([v * routed_scaling_factor for v in w])
        ids.append(pick)
    return torch.tensor(vals, dtype=torch.float64), torch.tensor(ids)


@pytest.mark.parametrize("scoring_func", ["softmax", "sigmoid"])
@pytest.mark.parametrize("renormalize", [False, True])
def test_grouped_topk_matches_a_loop_formulation(scoring_func, renormalize):
    a = M.make_grouped_topk_inputs({"num_tokens": 33, "num_experts": 64, "n_group": 8, "topk_group": 3,
                                    "topk": 6, "dtype": "float32", "scoring_func": scoring_func,
                                    "renormalize": renormalize, "routed_scaling_factor": 2.5}, seed=1, device=CPU)
    vals, ids = M.grouped_topk(**a)
    assert vals.dtype == torch.float32 and ids.dtype == torch.int32 and vals.shape == (33, 6)
    ev, ei = _grouped_topk_loop(**a)
    assert torch.equal(ids.long(), ei)
    torch.testing.assert_close(vals.double(), ev, atol=1e-5, rtol=1e-5)


def test_grouped_topk_falls_back_when_every_group_is_minus_inf():
    scores = torch.full((1, 16), -torch.inf)
    vals, ids = M.grouped_topk(scores, 8, 2, 4, True, 1.0, torch.zeros(16), 0)
    assert ids.tolist() == [[0, 1, 2, 3]] and vals.tolist() == [[0.25] * 4]


# ------------------------------------------------------------------------------------------- moe align


def _check_align(topk_ids, num_experts, bs, sorted_ids, expert_ids, post_pad, local_of=None, inactive=0):
    """Counting formulation: per expert, the set of slots in its blocks equals the slots routed to it."""
    flat = topk_ids.reshape(-1).tolist()
    numel = len(flat)
    routed: dict[int, list[int]] = {}
    for i, e in enumerate(flat):
        le = e if local_of is None else local_of.get(e, -1)
        if 0 <= e < num_experts and le != -1:
            routed.setdefault(le, []).append(i)
    total = sum(-(-len(v) // bs) * bs for v in routed.values())
    assert post_pad == total
    seen: dict[int, list[int]] = {}
    for b in range(total // bs):
        blk = sorted_ids[b * bs:(b + 1) * bs].tolist()
        seen.setdefault(int(expert_ids[b]), []).extend(v for v in blk if v != numel)
    assert {e: sorted(v) for e, v in seen.items()} == {e: sorted(v) for e, v in routed.items()}
    assert bool((sorted_ids[total:] == numel).all())
    n_blocks = -(-sorted_ids.numel() // bs)
    assert bool((expert_ids[total // bs: n_blocks] == inactive).all())
    eb = expert_ids[: total // bs].tolist()
    assert eb == sorted(eb)  # experts' runs follow expert order


@pytest.mark.parametrize("p", [
    {"num_tokens": 1, "topk": 1, "num_experts": 32, "block_size": 32},
    {"num_tokens": 3, "topk": 16, "num_experts": 160, "block_size": 128, "pad_sorted_ids": True},
    {"num_tokens": 256, "topk": 2, "num_experts": 257, "block_size": 32},
    {"num_tokens": 2256, "topk": 2, "num_experts": 32, "block_size": 128},
])
def test_moe_align_block_size_matches_counting(p):
    a = M.make_moe_align_block_size_inputs(p, seed=7, device=CPU)
    M.moe_align_block_size(**a)
    _check_align(a["topk_ids"], a["num_experts"], a["block_size"], a["sorted_token_ids"], a["experts_ids"],
                 int(a["num_tokens_post_pad"][0]))


def test_moe_align_block_size_with_expert_map_drops_remote_experts():
    a = M.make_moe_align_block_size_inputs({"num_tokens": 32, "topk": 4, "num_experts": 64, "block_size": 64,
                                            "expert_map": True}, seed=3, device=CPU)
    M.moe_align_block_size(**a)
    local_of = {g: i for g, i in enumerate(a["maybe_expert_map"].tolist()) if i != -1}
    _check_align(a["topk_ids"], 64, 64, a["sorted_token_ids"], a["experts_ids"], int(a["num_tokens_post_pad"][0]),
                 local_of=local_of)


def test_moe_align_block_size_docstring_example():
    ids = torch.tensor([[2, 3, 4], [1, 2, 4], [1, 3, 4], [1, 2, 3]], dtype=torch.int32) - 1
    s, e, n = torch.empty(16 + 4 * 3, dtype=torch.int32), torch.empty(7, dtype=torch.int32), torch.empty(1, dtype=torch.int32)
    M.moe_align_block_size(ids, 4, 4, s, e, n, None)
    assert s[:16].tolist() == [3, 6, 9, 12, 0, 4, 10, 12, 1, 7, 11, 12, 2, 5, 8, 12]
    assert e.tolist() == [0, 1, 2, 3, 0, 0, 0] and n.tolist() == [16]


@pytest.mark.parametrize("empty", [False, True])
def test_batched_moe_align_block_size_matches_the_test_loops(empty):
    a = M.make_batched_moe_align_block_size_inputs({"max_tokens_per_batch": 13, "num_experts": 16, "block_size": 8,
                                                    "simulate_empty_batches": empty}, seed=2, device=CPU)
    M.batched_moe_align_block_size(**a)
    counts, mt, bs = a["expert_num_tokens"].tolist(), 13, 8
    ref_s = [16 * mt] * a["sorted_token_ids"].numel()
    ref_e = [-1] * a["experts_ids"].numel()
    i = 0
    for b, c in enumerate(counts):
        for j in range(c):
            ref_s[i] = b * mt + j
            i += 1
        i = -(-i // bs) * bs
    pos = 0
    for b, c in enumerate(counts):
        for x in range(-(-c // bs)):
            ref_e[pos // bs + x] = b
        pos += -(-c // bs) * bs
    assert a["sorted_token_ids"].tolist() == ref_s and a["experts_ids"].tolist() == ref_e
    assert int(a["num_tokens_post_pad"][0]) == i
    if empty:
        assert counts.count(0) >= 8


def test_moe_lora_align_block_size_per_lora_counting():
    a = M.make_moe_lora_align_block_size_inputs({"num_tokens": 100, "topk_num": 6, "num_experts": 64, "max_loras": 3,
                                                 "block_size": 16, "no_lora_share": 0.2}, seed=1, device=CPU)
    a["lora_ids"][2] = -1  # slot 2 inactive: its chunk must stay as it was
    before = a["sorted_token_ids"].clone(), a["experts_ids"].clone(), a["num_tokens_post_pad"].clone()
    M.moe_lora_align_block_size(**a)
    n, nb = a["max_num_tokens_padded"], a["max_num_m_blocks"]
    mapping = a["token_lora_mapping"].tolist()
    assert -1 in mapping
    for lora in (0, 1):
        ids = a["topk_ids"].clone()
        ids[torch.tensor([m != lora for m in mapping])] = 10_000  # not this adapter's tokens: never counted
        _check_align(ids, 64, 16, a["sorted_token_ids"][lora * n:(lora + 1) * n], a["experts_ids"][lora * nb:(lora + 1) * nb],
                     int(a["num_tokens_post_pad"][lora]), inactive=-1)
    assert torch.equal(a["sorted_token_ids"][2 * n:], before[0][2 * n:])
    assert torch.equal(a["experts_ids"][2 * nb:], before[1][2 * nb:]) and a["num_tokens_post_pad"][2] == before[2][2]


# ------------------------------------------------------------------------------------------- data movement


@pytest.mark.parametrize("topk,dtype", [(2, "bfloat16"), (3, "float16"), (6, "float32")])
def test_moe_sum_matches_float64_sum(topk, dtype):
    a = M.make_moe_sum_inputs({"num_tokens": 33, "topk": topk, "hidden_size": 511, "dtype": dtype}, seed=0, device=CPU)
    M.moe_sum(**a)
    tol = {"bfloat16": 2e-2, "float16": 3e-3, "float32": 1e-5}[dtype]
    torch.testing.assert_close(a["output"].double(), a["input"].double().sum(1), atol=tol, rtol=tol)


@pytest.mark.parametrize("mapping", ["identity", "reverse", "permutation", "expansion"])
def test_shuffle_rows_copies_the_mapped_rows(mapping):
    a = M.make_shuffle_rows_inputs({"num_tokens": 16, "hidden_size": 128, "mapping": mapping}, seed=0, device=CPU)
    M.shuffle_rows(**a)
    for i, src in enumerate(a["dst2src_map"].tolist()):
        assert torch.equal(a["output_tensor"][i], a["input_tensor"][src])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_apply_repetition_penalties_matches_the_torch_fallback(dtype):
    a = X.make_apply_repetition_penalties_inputs({"num_seqs": 13, "vocab_size": 1019, "dtype": dtype,
                                                  "repetition_penalty": "random"}, seed=0, device=CPU)
    logits = a["logits"].clone()
    X.apply_repetition_penalties_(**a)
    # vllm's apply_repetition_penalties_torch, written out again
    pen = a["repetition_penalties"].unsqueeze(1).repeat(1, logits.size(1))
    pen = torch.where(a["prompt_mask"] | a["output_mask"], pen, 1.0)
    logits *= torch.where(logits > 0, 1.0 / pen, pen)
    tol = 1e-6 if dtype == "float32" else 2e-3
    torch.testing.assert_close(a["logits"], logits, atol=tol, rtol=tol)
    assert bool((a["prompt_mask"] | a["output_mask"]).any())


def test_permute_cols_gathers_columns_into_a_new_tensor():
    a = X.make_permute_cols_inputs({"shape": [67, 8192], "dtype": "bfloat16"}, seed=0, device=CPU)
    out = X.permute_cols(**a)
    assert out.data_ptr() != a["A"].data_ptr() and out.is_contiguous()
    assert torch.equal(out, torch.index_select(a["A"], 1, a["perm"].long()))


# ------------------------------------------------------------------------------------------- curated entries

_MODULES = {m.__name__: m for m in (N, Q, R, M, X)}


def test_curated_entries_parse_and_name_their_functions():
    entries = _entries()
    assert len(entries) == 20
    for name, e in entries.items():
        schema = torch._C.parse_schema(e["schema"])
        assert schema.name == name
        mod = _MODULES[e["module"]]
        fn, gen = getattr(mod, e["function"]), getattr(mod, e["inputs"])
        assert e["correctness"] and e["performance"], name
        mutable = [a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]
        for p in e["correctness"]:
            args = gen({**e.get("fixed", {}), **p}, seed=0, device=CPU)
            assert set(args) == {a.name for a in schema.arguments}, name
            ret = fn(**args)
            assert (ret is None) == (len(schema.returns) == 0), name
            outputs = [args[m] for m in mutable if args[m] is not None] if ret is None else ret
            cost = workload_cost(e["cost"], args, outputs)
            assert cost["bytes"] > 0 and cost["flops"] >= 0, name


def test_reference_modules_are_self_contained():
    from kernelgenbench.reference_impls.inline import module_text as module_source

    for name in _MODULES:
        source = module_source(name)  # the text a record carries (shared helpers written in)
        imports = {ln.split()[1].split(".")[0] for ln in source.splitlines() if ln.startswith(("import ", "from "))}
        assert imports <= {"torch", "math", "__future__"}, (name, imports)
        namespace: dict = {"__name__": "isolated"}
        exec(compile(source, name, "exec"), namespace)  # noqa: S102 - as the evaluator runs record code


def test_modules_import_without_side_effects():
    for name in _MODULES:
        importlib.reload(importlib.import_module(name))


def _compare(a, b, tol: dict, where: str) -> None:
    if isinstance(a, torch.Tensor):
        a, b = a.cpu(), b.cpu()
        t = tol.get(str(a.dtype).removeprefix("torch."))
        if not (a.dtype.is_floating_point or a.dtype.is_complex) and t is None:
            assert torch.equal(a, b), where  # integers without a tolerance of their own: exact
            return
        t = t or {"atol": 1e-5, "rtol": 1e-5}
        bad = ~torch.isclose(a.double(), b.double(), atol=t["atol"], rtol=t["rtol"], equal_nan=True)
        assert float(bad.double().mean()) <= t.get("max_mismatch", 0.0), where
    elif isinstance(a, list | tuple):
        for x, y in zip(a, b, strict=True):
            _compare(x, y, tol, where)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(_entries()))
def test_references_run_on_the_accelerator_as_on_cpu(name):
    """The evaluator runs references on the device: same inputs give the CPU answer within tolerance."""
    e = _entries()[name]
    mod = _MODULES[e["module"]]
    fn, gen = getattr(mod, e["function"]), getattr(mod, e["inputs"])
    for p in e["correctness"]:
        params = {**e.get("fixed", {}), **p}
        cpu, dev = gen(params, seed=5, device=CPU), gen(params, seed=5, device="cuda")
        out_cpu, out_dev = fn(**cpu), fn(**dev)
        _compare(out_cpu, out_dev, e["tolerance"], f"{name} {p} return")
        for k, v in cpu.items():
            _compare(v, dev[k], e["tolerance"], f"{name} {p} {k}")


def _qk_norm_rope_rounding_between_steps(a: dict) -> torch.Tensor:
    # vLLM's test reference (RMSNorm.forward_native then RotaryEmbedding.forward_native in the dtype): it
    # rounds after the norm, after the weight, and in every product of the rotation.
    qkv, dt = a["qkv"].clone(), a["qkv"].dtype
    hq, hk, hv, d = a["num_heads_q"], a["num_heads_k"], a["num_heads_v"], a["head_dim"]
    heads = qkv.view(qkv.shape[0], hq + hk + hv, d)

    def norm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + a["eps"])).to(dt) * w

    cs = a["cos_sin_cache"][a["position_ids"].long()].to(dt)
    half = d // 2
    cos, sin = cs[:, None, :half], cs[:, None, half:]

    def rot(x: torch.Tensor) -> torch.Tensor:
        if a["is_neox"]:
            x1, x2 = x[..., :half], x[..., half:]
            return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
        x1, x2 = x[..., ::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).flatten(-2)

    heads[:, :hq] = rot(norm(heads[:, :hq], a["q_weight"]))
    heads[:, hq:hq + hk] = rot(norm(heads[:, hq:hq + hk], a["k_weight"]))
    return qkv


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_fused_qk_norm_rope_tolerance_admits_rounding_between_steps(dtype):
    from kernelgenbench.dataset.record import Tolerance
    from kernelgenbench.evaluator.compare import compare_values

    entry = yaml.safe_load((resources.files("kernelgenbench.data") / "vllm_curated_core.yaml").read_text())
    tol = Tolerance(**next(v for k, v in _walk_entries(entry) if k == "fused_qk_norm_rope")["tolerance"][dtype])
    failed = []
    for is_neox in (True, False):
        for eps in (1e-5, 1e-6):
            for seed in range(6):
                a = R.make_fused_qk_norm_rope_inputs({"dtype": dtype, "is_neox": is_neox, "eps": eps,
                                                      "num_tokens": 16}, seed=seed, device="cpu")
                ours = a["qkv"].clone()
                R.fused_qk_norm_rope(**{**a, "qkv": ours})
                verdict, _ = compare_values("qkv", ours, _qk_norm_rope_rounding_between_steps(a), tol)
                if not verdict.passed:
                    failed.append((is_neox, eps, seed, verdict.evidence))
    assert not failed, failed


def _walk_entries(node):
    # The curated YAML nests op entries one level under section keys.
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, dict) and "tolerance" in v:
                yield k, v
            else:
                yield from _walk_entries(v)
