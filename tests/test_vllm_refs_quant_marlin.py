"""The Marlin-family references: permutations, packers, repacks, 2:4 metadata and GEMM equivalence on CPU."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.reference_impls import vllm_quant_marlin as M


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    # These references run many small ops; on a shared, loaded machine intra-op threads only contend.
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def test_scalar_type_ids_follow_the_vllm_bit_layout():
    # mantissa at bit 8, bias at bit 17, nan_repr (IEEE_754 = 1, the integer default) at bit 50.
    assert M.MARLIN_TYPES["uint4b8"][0] == (4 << 8) + (8 << 17) + (1 << 50)
    assert M.MARLIN_TYPES["uint8b128"][0] == (8 << 8) + (128 << 17) + (1 << 50)
    assert M.MARLIN_TYPES["uint4"][0] == (4 << 8) + (1 << 50)
    with pytest.raises(ValueError, match="not covered"):
        M._type(12345)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("is_a_8bit", [False, True])
def test_weight_perms_are_permutations(bits, is_a_8bit):
    for p in (M.weight_perm(bits, is_a_8bit), M.weight_perm_24(bits)):
        assert sorted(p.tolist()) == list(range(1024))


def test_weight_perm_first_fragment_by_hand():
    # get_weight_perm(4): i = 0 gives rows 0, 1, 8, 9 of column 0 for blocks 0 and 1 ->
    # [0, 16, 128, 144, 8, 24, 136, 152], then the 4-bit interleave [0, 2, 4, 6, 1, 3, 5, 7].
    assert M.weight_perm(4)[:8].tolist() == [0, 128, 8, 136, 16, 144, 24, 152]
    # 8-bit interleave [0, 2, 1, 3] on the same fragment
    assert M.weight_perm(8)[:4].tolist() == [0, 128, 16, 144]
    grouped, single = M.scale_perms()
    assert grouped[:9] == [0, 8, 16, 24, 32, 40, 48, 56, 1] and single[:8] == [0, 1, 8, 9, 16, 17, 24, 25]


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("is_a_8bit", [False, True])
def test_marlin_pack_round_trip_and_shape(bits, is_a_8bit):
    q = torch.randint(0, 2**bits, (256, 128), generator=torch.Generator().manual_seed(bits))
    w = M.marlin_pack(q, bits, is_a_8bit)
    assert w.dtype == torch.int32 and w.shape == (256 // 16, 128 * 16 * bits // 32)
    assert torch.equal(M.marlin_unpack(w, 256, 128, bits, is_a_8bit), q)
    # the first word holds the first pf values of the permuted first tile row-major block
    tile = q.reshape(16, 16, 8, 16).permute(0, 2, 1, 3).reshape(16, 128 * 16) if not is_a_8bit else None
    if tile is not None:
        first = tile[0, :1024][M.weight_perm(bits)][: 32 // bits]
        word = int(w[0, 0]) & 0xFFFFFFFF
        assert [(word >> (bits * i)) & (2**bits - 1) for i in range(32 // bits)] == first.tolist()


@pytest.mark.parametrize("bits", [4, 8])
def test_gptq_and_awq_packs_round_trip(bits):
    q = torch.randint(0, 2**bits, (128, 64), generator=torch.Generator().manual_seed(0))
    assert torch.equal(M.pack_free_rows(M.gptq_pack(q, bits), bits), q)
    assert torch.equal(M.awq_unpack(M.awq_pack(q, bits), bits), q)
    if bits == 4:
        word = int(M.awq_pack(torch.arange(8).view(1, 8), 4)[0, 0])
        assert [(word >> (4 * i)) & 0xF for i in range(8)] == [0, 2, 4, 6, 1, 3, 5, 7]


def test_gptq_marlin_moe_repack_equals_packing_marlin_directly():
    args = M.make_gptq_marlin_moe_repack_inputs(dict(num_experts=3, nk_factors=[4, 8], k_chunk=128, n_chunk=64,
                                                     num_bits=4, act_order=True), seed=0, device="cpu")
    out = M.gptq_marlin_moe_repack(**args)
    k, n = args["size_k"], args["size_n"]
    assert out.shape == (3, k // 16, n * 4 // 2) and out.dtype == torch.int32
    for e in range(3):
        q = M.pack_free_rows(args["b_q_weight"][e], 4)
        perm = args["perm"][e].long()
        assert sorted(perm.tolist()) == list(range(k))
        assert torch.equal(out[e], M.marlin_pack(q[perm], 4))
    no_perm = dict(args, perm=torch.empty(3, 0, dtype=torch.int32))
    assert torch.equal(M.gptq_marlin_moe_repack(**no_perm)[1], M.marlin_pack(M.pack_free_rows(args["b_q_weight"][1], 4), 4))


@pytest.mark.parametrize("bits,is_a_8bit", [(4, False), (8, False), (4, True)])
def test_awq_marlin_moe_repack_equals_packing_marlin_directly(bits, is_a_8bit):
    args = M.make_awq_marlin_moe_repack_inputs(dict(num_experts=2, k=256, n=128, num_bits=bits, is_a_8bit=is_a_8bit),
                                               seed=1, device="cpu")
    out = M.awq_marlin_moe_repack(**args)
    for e in range(2):
        q = M.awq_unpack(args["b_q_weight"][e], bits)
        assert torch.equal(out[e], M.marlin_pack(q, bits, is_a_8bit))
        assert torch.equal(M.marlin_unpack(out[e], 256, 128, bits, is_a_8bit), q)


def test_zero_point_and_bias_permutations_round_trip():
    zp = torch.randint(0, 16, (4, 128), generator=torch.Generator().manual_seed(0))
    packed = M.marlin_zero_points(zp, 4)
    assert packed.shape == (4, 16) and torch.equal(M.marlin_zero_points_unpack(packed, 4), zp)
    b = torch.randn(128)
    assert torch.equal(M.permute_bias(M.permute_bias(b), inverse=True), b)
    s = torch.randn(2, 128)
    assert torch.equal(M.permute_scales(M.permute_scales(s, 2), 2, inverse=True), s)
    assert not torch.equal(M.permute_scales(s[:1], 1), M.permute_scales(s, 2)[:1])  # the two permutations differ


@pytest.mark.parametrize("quant_type", ["uint4b8", "uint8b128", "uint4", "uint8", "float8_e4m3fn"])
@pytest.mark.parametrize("act_order,group_size", [(False, -1), (False, 32), (True, 64)])
def test_gptq_marlin_gemm_equals_dequantize_then_matmul(quant_type, act_order, group_size):
    p = dict(m=5, k=256, n=128, quant_type=quant_type, group_size=group_size, act_order=act_order,
             dtype="float16", use_bias=True)
    args = M.make_gptq_marlin_gemm_inputs(p, seed=2, device="cpu")
    gen = torch.Generator().manual_seed(2)
    prob = M.make_marlin_problem(p, gen)
    a = torch.randn(5, 256, generator=gen).half()
    bias = torch.randn(128, generator=gen).half()
    assert torch.equal(args["a"], a)
    has_act = act_order and quant_type in ("uint4b8", "uint8b128")  # AWQ-style and fp8 have no act-order
    assert (args["perm_or_none"].numel() > 0) == has_act
    ref = a.float() @ prob["w_dq"].float() + bias.float()  # the unsorted dense weight
    out = M.gptq_marlin_gemm(**args)
    assert out.shape == (5, 128) and out.dtype == torch.float16
    assert (out.float() - ref).abs().max() < 2e-2
    # ... and the dense weight really is the quantized dense draw
    err = (prob["w_dq"].float() - prob["w"]).norm() / prob["w"].norm()
    assert err < {"uint4b8": 0.15, "uint4": 0.15, "uint8b128": 0.01, "uint8": 0.01, "float8_e4m3fn": 0.05}[quant_type]


@pytest.mark.parametrize("dtype,bias", [("float16", 8), ("bfloat16", 120)])
def test_marlin_fp8_scales_carry_the_exponent_bias(dtype, bias):
    assert M.MARLIN_TYPES["float8_e4m3fn"][0] == 4 + (3 << 8) + (1 << 16) + (1 << 49) + (2 << 50)
    assert M.fp8_exponent_bias(getattr(torch, dtype)) == bias
    p = dict(m=2, k=128, n=64, quant_type="float8_e4m3fn", group_size=-1, dtype=dtype)
    prob = M.make_marlin_problem(p, torch.Generator().manual_seed(0))
    s = M.permute_scales(M.make_gptq_marlin_gemm_inputs(p, seed=0, device="cpu")["b_scales"], 1, inverse=True)
    w = prob["w"]
    plain = (w.abs().amax(0) / 448).to(getattr(torch, dtype)).float()
    torch.testing.assert_close(s[0].float() / 2.0**bias, plain, rtol=1e-2, atol=0)


def test_gptq_marlin_gemm_writes_c_when_given():
    args = M.make_gptq_marlin_gemm_inputs(dict(m=2, k=128, n=64, group_size=-1), seed=0, device="cpu")
    c = torch.full((2, 64), float("nan"), dtype=torch.float16)
    out = M.gptq_marlin_gemm(**dict(args, c_or_none=c))
    assert out is c and torch.isfinite(c).all()


@pytest.mark.parametrize(
    "quad,code",
    [([1, 1, 0, 0], 0b0100), ([1, 0, 1, 0], 0b1000), ([0, 1, 1, 0], 0b1001), ([1, 0, 0, 1], 0b1100),
     ([0, 1, 0, 1], 0b1101), ([0, 0, 1, 1], 0b1110), ([0, 0, 0, 0], 0b1110), ([1, 0, 0, 0], 0b1000)],
)
def test_24_metadata_encoding(quad, code):
    dense = torch.tensor(quad * 8).repeat(64, 1) * 3  # 64 rows x 32 columns: the reorder works on 64-row groups
    kept, meta = M.compress_24(dense)
    raw = meta.reshape(-1)[M._meta_offsets(64, 2)].to(torch.int64) & 0xFFFF
    assert int(raw[0]) & 0xF == code
    assert torch.equal(M.decompress_24(kept, meta), dense)


def test_24_compress_round_trip_and_offsets_are_a_permutation():
    g = torch.Generator().manual_seed(0)
    w = torch.randn(128, 64, generator=g)  # [K, N]
    mask = M.mask_24(w)
    assert (mask.t().reshape(-1, 4).sum(1) == 2).all()
    codes = (torch.randint(-7, 8, (128, 64), generator=g) * mask).t().contiguous()  # [N, K]
    kept, meta = M.compress_24(codes)
    assert kept.shape == (64, 64) and meta.shape == (64, 8) and meta.dtype == torch.int16
    assert torch.equal(M.decompress_24(kept, meta), codes)
    off = M._meta_offsets(64, 8)
    assert sorted(off.tolist()) == list(range(64 * 8))


@pytest.mark.parametrize("quant_type,group_size", [("uint4b8", 128), ("uint8b128", -1)])
def test_gptq_marlin_24_gemm_equals_dense(quant_type, group_size):
    p = dict(mnk_factors=[3, 1, 2], quant_type=quant_type, group_size=group_size)
    args = M.make_gptq_marlin_24_gemm_inputs(p, seed=0, device="cpu")
    gen = torch.Generator().manual_seed(0)
    prob = M.make_marlin_24_problem(dict(m=3, n=512, k=256, quant_type=quant_type, group_size=group_size), gen)
    a = torch.randn(3, 256, generator=gen).half()
    assert args["b_meta"].shape == (256 // 32, 2 * 512)
    w = prob["w_dq"].float()
    assert ((w.t().reshape(-1, 4) != 0).sum(1) <= 2).all()  # 2:4 sparse along K
    out = M.gptq_marlin_24_gemm(**args)
    assert (out.float() - a.float() @ w).abs().max() < 2e-2


def _vllm_preprocess_reference(u: torch.Tensor, z: torch.Tensor | None, gs: int) -> torch.Tensor:
    # tests/kernels/quantization/test_marlin_gemm.py::test_marlin_int4_fp8_preprocess_{without_zp,awq}
    if z is None:
        r = torch.where(u >= 8, u - 8, 15 - u)
    else:
        r = u - z.repeat_interleave(gs, 0)
        r[r < 0] = 15 - u[r < 0]
    return (r[:, ::2] * 16 + r[:, 1::2]).to(torch.int8).view(torch.int32)


@pytest.mark.parametrize("with_zp", [False, True])
def test_marlin_int4_fp8_preprocess_matches_the_vllm_tests(with_zp):
    g = torch.Generator().manual_seed(0)
    u = torch.randint(0, 16, (256, 64), generator=g, dtype=torch.int32)
    z = torch.randint(0, 16, (2, 64), generator=g, dtype=torch.int32) if with_zp else None
    qw = (u[:, ::2] * 16 + u[:, 1::2]).to(torch.int8).view(torch.int32)
    qz = None if z is None else (z[:, ::2] * 16 + z[:, 1::2]).to(torch.int8).view(torch.int32)
    out = M.marlin_int4_fp8_preprocess(qw, qz, False)
    assert torch.equal(out, _vllm_preprocess_reference(u, z, 128))
    before = qw.clone()
    same = M.marlin_int4_fp8_preprocess(qw, qz, True)
    assert same is qw and torch.equal(qw, out) and not torch.equal(before, out)


@pytest.mark.parametrize("quant_type", ["uint4b8", "uint4"])
@pytest.mark.parametrize("group_size", [-1, 32])
def test_gptq_marlin_gemm_int8_activations(quant_type, group_size):
    p = dict(m=7, k=256, n=128, quant_type=quant_type, group_size=group_size, dtype="bfloat16", a_dtype="int8")
    args = M.make_gptq_marlin_gemm_inputs(p, seed=0, device="cpu")
    assert args["a"].dtype == torch.int8 and args["a_scales"].dtype == torch.float32
    # the same draws, dequantized the plain way: (int8 codes * per-token scale) @ ((q - zero) * s)
    g = torch.Generator().manual_seed(0)
    gs = 256 if group_size == -1 else group_size
    g_idx = M._g_idx(256, gs, False, g)
    w = M._dense(256, 128, g)
    q, s, zp = M.quantize_groups(w, 4, g_idx, 256 // gs, quant_type == "uint4")
    x = torch.randn(7, 256, generator=g)
    a_s = x.abs().amax(1, keepdim=True) / 127
    a_ref = torch.round(x / a_s).clamp(-127, 127) * a_s
    ref = a_ref @ M.dequantize(q, s.to(torch.bfloat16), zp, 8 if quant_type == "uint4b8" else 0, g_idx.long(),
                               torch.float32)
    out = M.gptq_marlin_gemm(**args)
    assert out.dtype == torch.bfloat16
    assert float((out.float() - ref).abs().max() / ref.abs().max()) < 1e-2
    assert torch.equal(M.marlin_unpack(args["b_q_weight"], 256, 128, 4, is_a_8bit=True), q)
    if group_size != -1:  # grouped scales travel as round(s / max(s) * 4096) in int16 bits
        s_int = M._chunk_perm(args["b_scales"], M.scale_perms()[1], inverse=True).view(torch.int16)
        assert int(s_int.max()) == 4096 and int(s_int.min()) >= 0


def test_fp8_activation_weight_codes_are_e4m3_subnormals():
    # the kernel's byte for nibble v' = sign<<3 | mag is ((mag | sign<<7) + sign): read as e4m3 by torch
    pre = torch.arange(16)
    byte = ((pre & 7) | ((pre & 8) << 4)) + ((pre & 8) >> 3)
    as_fp8 = byte.to(torch.uint8).view(torch.float8_e4m3fn).float() * 512
    assert torch.equal(as_fp8, M.fp8_act_codes(pre).float())
    codes = torch.arange(16).view(2, 8)
    pre = M.unpack_along(M.marlin_int4_fp8_preprocess(M.pack_along(codes, 4, 1), None, False), 4, 1)
    assert torch.equal(M.fp8_act_codes(pre), codes - 8)


@pytest.mark.parametrize("group_size", [-1, 128])
def test_gptq_marlin_gemm_fp8_activations(group_size):
    p = dict(m=5, k=256, n=128, group_size=group_size, a_dtype="float8_e4m3fn", dtype="bfloat16")
    args = M.make_gptq_marlin_gemm_inputs(p, seed=0, device="cpu")
    g = torch.Generator().manual_seed(0)
    gs = 256 if group_size == -1 else group_size
    g_idx = M._g_idx(256, gs, False, g)
    q, s, _ = M.quantize_groups(M._dense(256, 128, g), 4, g_idx, 256 // gs, False)
    x = torch.randn(5, 256, generator=g)
    a_s = x.abs().amax(1, keepdim=True) / 448
    ref = ((x / a_s).to(torch.float8_e4m3fn).float() * a_s) @ ((q - 8).float() * s.to(torch.bfloat16).float()[g_idx.long()])
    out = M.gptq_marlin_gemm(**args)
    assert out.dtype == torch.bfloat16 and float((out.float() - ref).abs().max() / ref.abs().max()) < 1e-2
    with pytest.raises(ValueError, match="uint4b8"):
        M.gptq_marlin_gemm(**dict(args, b_type_id=M.MARLIN_TYPES["uint4"][0]))


def test_gptq_marlin_gemm_hqq_float_zero_points():
    args = M.make_gptq_marlin_gemm_inputs(dict(m=3, k=256, n=128, group_size=64, is_zp_float=True), seed=0,
                                          device="cpu")
    assert args["is_zp_float"] and args["b_zeros_or_none"].dtype == torch.float16
    q = M.marlin_unpack(args["b_q_weight"], 256, 128, 4)
    s = M.permute_scales(args["b_scales"], 4, inverse=True).float().repeat_interleave(64, 0)
    zp = M.permute_scales(args["b_zeros_or_none"], 4, inverse=True).float().repeat_interleave(64, 0)
    ref = args["a"].float() @ ((q - zp) * s)  # the vLLM test's dequant: (b - zp) * s
    out = M.gptq_marlin_gemm(**args)
    assert out.dtype == torch.float16 and (out.float() - ref).abs().max() < 2e-2
    w = M._dense(256, 128, torch.Generator().manual_seed(0))
    assert float(((q - zp) * s - w).norm() / w.norm()) < 0.15  # a real quantization of the dense draw


def test_fp4_codes_and_nvfp4_scale_encoding_match_vllm_formulas():
    assert M.FP4_ID == 2 + (1 << 8) + (1 << 16) + (1 << 49)
    # rand_marlin_weight_*fp4_like's decoding: (b & 0x80 | (b & 0x70) >> 2) read as e4m3, x 2**6
    b = torch.arange(16, dtype=torch.uint8)
    trick = (((b << 4) & 0x80) | (((b << 4) & 0x70) >> 2)).view(torch.float8_e4m3fn).float() * 64
    assert torch.equal(trick, M.e2m1_decode(b.long()))
    # nvfp4_marlin_process_scales: (half(s)[.., [0,2,1,3]] * 2**7).view(int16) << 1, odd bytes as fp8
    s = torch.tensor([[0.5, 1.25, 3.0, 0.0078125] * 16]).to(torch.float8_e4m3fn).float().half()
    expect = ((s.view(-1, 4)[:, [0, 2, 1, 3]].view(1, -1) * 2**7).view(torch.int16) << 1)
    expect = expect.view(torch.float8_e4m3fn)[:, 1::2]
    enc = M.nvfp4_scales_encode(s)
    assert torch.equal(enc.view(torch.uint8), expect.view(torch.uint8))
    assert torch.equal(M.nvfp4_scales_decode(enc), s.float())


@pytest.mark.parametrize("quant_type", ["nvfp4", "mxfp4"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gptq_marlin_gemm_fp4_weights(quant_type, dtype):
    args = M.make_gptq_marlin_gemm_inputs(dict(m=5, k=256, n=128, quant_type=quant_type, dtype=dtype), seed=0,
                                          device="cpu")
    assert args["b_type_id"] == M.FP4_ID
    assert args["b_scales"].dtype == (torch.float8_e4m3fn if quant_type == "nvfp4" else torch.float8_e8m0fnu)
    assert (args["global_scale"] is not None) == (quant_type == "nvfp4")
    g = torch.Generator().manual_seed(0)
    w = M._dense(256, 128, g)
    a = torch.randn(5, 256, generator=g).to(getattr(torch, dtype))
    out = M.gptq_marlin_gemm(**args)
    assert out.dtype == getattr(torch, dtype)
    dense = a.float() @ w
    assert float((out.float() - dense).abs().mean() / dense.abs().mean()) < 0.2  # 4-bit float weights
    codes = M.marlin_unpack(args["b_q_weight"], 256, 128, 4)
    gs = 16 if quant_type == "nvfp4" else 32
    if quant_type == "nvfp4":
        s = M.permute_scales(M.nvfp4_scales_decode(args["b_scales"]), 256 // gs, inverse=True)
        gscale = float(args["global_scale"][0]) / 2.0 ** ({"float16": 14, "bfloat16": 126}[dtype] - 7)
    else:
        raw = args["b_scales"].float().reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(args["b_scales"].shape)
        s, gscale = M.permute_scales(raw, 256 // gs, inverse=True), 1.0
    wq = M.e2m1_decode(codes) * s.repeat_interleave(gs, 0) * gscale
    assert (out.float() - a.float() @ wq).abs().max() < 3e-2
