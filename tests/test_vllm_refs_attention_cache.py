"""Independent checks of the vLLM KV-cache write references (vllm_cache) on CPU."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.reference_impls import vllm_cache as vc


def _nearest_fp8(x: torch.Tensor, dt: torch.dtype) -> torch.Tensor:
    """Round to the nearest finite fp8 value by search over all 256 codes (ties to the even code)."""
    codes = torch.arange(256, dtype=torch.int32).to(torch.uint8)
    vals = codes.view(dt).float()
    ok = torch.isfinite(vals)
    codes, vals = codes[ok].long(), vals[ok]
    fmax = vals.max()
    xs = x.float().clamp(-fmax, fmax).reshape(-1, 1)
    dist = (xs - vals.reshape(1, -1)).abs()
    best = dist.min(dim=1, keepdim=True).values
    # among equally near codes prefer the even one (even mantissa), and +0 over -0
    cand = (dist == best) & ((codes % 2 == 0) | (dist == best).sum(1, keepdim=True).eq(1))
    idx = torch.argmax(cand.int(), dim=1)
    return codes[idx].to(torch.uint8).reshape(x.shape)


@pytest.mark.parametrize("fmt", ["fp8", "fp8_e5m2"])
def test_fp8_quantize_matches_code_search(fmt):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4000, generator=g) * 30
    x[:3] = torch.tensor([1e6, -1e6, 0.0])  # saturation and zero
    q = vc.fp8_quantize(x, 0.5, fmt)
    ref = _nearest_fp8(x / 0.5, vc._FP8[fmt])
    assert torch.equal(q.view(vc._FP8[fmt]).float(), ref.view(vc._FP8[fmt]).float())


def _call(fn, args):
    fn(**args)
    return args


@pytest.mark.parametrize("kvd", ["auto", "fp8"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_reshape_and_cache_reads_back(kvd, dtype):
    p = dict(num_tokens=42, num_heads=8, head_size=80, block_size=16, dtype=dtype, kv_cache_dtype=kvd)
    a = vc.make_reshape_and_cache_inputs(p, seed=3, device="cpu")
    old_k, old_v = a["key_cache"].clone(), a["value_cache"].clone()
    assert (a["slot_mapping"] == -1).sum() == 2
    assert a["key"].stride(0) == 3 * 8 * 80
    vc.reshape_and_cache(**a)
    kc, vcache, x = a["key_cache"], a["value_cache"], a["key_cache"].shape[4]
    touched = torch.zeros_like(kc, dtype=torch.bool)
    for t, slot in enumerate(a["slot_mapping"].tolist()):
        if slot < 0:
            continue
        b, o = divmod(slot, 16)
        k = torch.stack([kc[b, :, d // x, o, d % x] for d in range(80)], dim=1)  # [heads, head_size]
        v = vcache[b, :, :, o]
        if kvd == "auto":
            assert torch.equal(k, a["key"][t]) and torch.equal(v, a["value"][t])
        else:
            kf = vc.fp8_dequantize(k, a["k_scale"], "fp8", torch.float32)
            vf = vc.fp8_dequantize(v, a["v_scale"], "fp8", torch.float32)
            torch.testing.assert_close(kf, a["key"][t].float(), atol=1e-3, rtol=0.1)
            torch.testing.assert_close(vf, a["value"][t].float(), atol=1e-3, rtol=0.1)
        touched[b, :, :, o, :] = True
    assert torch.equal(kc[~touched], old_k[~touched])
    assert int(touched[:, 0, 0, :, 0].sum()) == 40
    untouched_v = ~touched[:, 0, 0, :, 0]  # [blocks, block_size]
    assert torch.equal(vcache.permute(0, 3, 1, 2)[untouched_v], old_v.permute(0, 3, 1, 2)[untouched_v])


@pytest.mark.parametrize("layout", ["NHD", "HND"])
@pytest.mark.parametrize("kvd", ["auto", "fp8_e4m3", "fp8_e5m2"])
def test_reshape_and_cache_flash_reads_back(layout, kvd):
    p = dict(num_tokens=21, num_heads=4, head_size=64, block_size=8, dtype="bfloat16",
             kv_cache_dtype=kvd, kv_cache_layout=layout)
    a = vc.make_reshape_and_cache_flash_inputs(p, seed=1, device="cpu")
    kc = a["key_cache"]
    assert kc.shape[1:] == (8, 4, 64)
    assert (kc.stride(2) == 64) == (layout == "NHD")
    base = kc.as_strided((kc.shape[0] * 2 * 8 * 4 * 64,), (1,), 0)  # the joint allocation
    old = base.clone()
    vc.reshape_and_cache_flash(**a)
    written = torch.zeros_like(base, dtype=torch.bool)
    blocks = kc.shape[0]
    joint = base.view(blocks, 2, 8, 4, 64) if layout == "NHD" else base.view(blocks, 2, 4, 8, 64).transpose(2, 3)
    wj = written.view(blocks, 2, 8, 4, 64) if layout == "NHD" else written.view(blocks, 2, 4, 8, 64).transpose(2, 3)
    for t, slot in enumerate(a["slot_mapping"].tolist()):
        if slot < 0:
            continue
        b, o = divmod(slot, 8)
        for j, (src, sc) in enumerate(((a["key"], a["k_scale"]), (a["value"], a["v_scale"]))):
            got = joint[b, j, o]
            if kvd == "auto":
                assert torch.equal(got, src[t])
            else:
                torch.testing.assert_close(vc.fp8_dequantize(got, sc, kvd, torch.float32), src[t].float(),
                                           atol=1e-3, rtol=0.25)
            wj[b, j, o] = True
    assert torch.equal(base[~written], old[~written])


@pytest.mark.parametrize("kvd", ["auto", "fp8"])
def test_concat_and_cache_mla_reads_back(kvd):
    p = dict(num_tokens=42, block_size=16, num_blocks=8, dtype="float32", kv_cache_dtype=kvd)
    a = vc.make_concat_and_cache_mla_inputs(p, seed=0, device="cpu")
    old = a["kv_cache"].clone()
    vc.concat_and_cache_mla(**a)
    mask = torch.zeros(8, 16, dtype=torch.bool)
    for t, slot in enumerate(a["slot_mapping"].tolist()):
        if slot < 0:
            continue
        b, o = divmod(slot, 16)
        row = a["kv_cache"][b, o]
        want = torch.cat([a["kv_c"][t], a["k_pe"][t]])
        if kvd == "auto":
            assert torch.equal(row, want)
        else:
            torch.testing.assert_close(vc.fp8_dequantize(row, 0.1, "fp8", torch.float32), want,
                                       atol=1e-3, rtol=0.1)
        mask[b, o] = True
    assert torch.equal(a["kv_cache"][~mask], old[~mask])


def test_concat_and_cache_ds_mla_layout():
    p = dict(num_tokens=10, block_size=16, num_blocks=4, dtype="bfloat16", kv_cache_dtype="fp8_ds_mla")
    a = vc.make_concat_and_cache_mla_inputs(p, seed=2, device="cpu")
    vc.concat_and_cache_mla(**a)
    for t, slot in enumerate(a["slot_mapping"].tolist()):
        if slot < 0:
            continue
        entry = a["kv_cache"][slot // 16, slot % 16]
        scales = entry[512:528].view(torch.float32)
        for tile in range(4):
            data = a["kv_c"][t, tile * 128:(tile + 1) * 128].float()
            m = max(abs(float(v)) for v in data)
            assert float(scales[tile]) == pytest.approx(m / 448.0, rel=1e-6)
            deq = entry[tile * 128:(tile + 1) * 128].view(torch.float8_e4m3fn).float() * scales[tile]
            torch.testing.assert_close(deq, data, atol=1e-3, rtol=0.07)
        assert torch.equal(entry[528:].view(torch.bfloat16), a["k_pe"][t])


@pytest.mark.parametrize("dtype", ["bfloat16", "float32", "float16"])
def test_convert_fp8_round_trip(dtype):
    p = dict(num_blocks=4, num_heads=2, head_size=64, block_size=8, dtype=dtype, scale=2.0)
    a = vc.make_convert_fp8_inputs(p, seed=0, device="cpu")
    vc.convert_fp8(**a)
    q = a["dst_cache"]
    assert q.dtype == torch.uint8
    back = torch.full_like(a["src_cache"], float("nan"))
    vc.convert_fp8(back, q, 2.0, "fp8")
    torch.testing.assert_close(back, a["src_cache"], atol=1e-3, rtol=0.1)
    assert torch.equal(q, _nearest_fp8(a["src_cache"].float() / 2.0, torch.float8_e4m3fn))
    d = vc.make_convert_fp8_inputs(dict(p, direction="dequantize"), seed=0, device="cpu")
    vc.convert_fp8(**d)
    assert not torch.isnan(d["dst_cache"]).any()
    with pytest.raises(ValueError, match="Unsupported data type: fp8_e5m2"):
        vc.convert_fp8(back, q, 2.0, "fp8_e5m2")
