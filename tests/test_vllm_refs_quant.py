"""The quantized-weight vLLM references: round trips, layouts against the kernels' own loops, GEMM equivalence."""

from __future__ import annotations

import ast
import importlib
import importlib.resources
import math
import struct
import sys

import pytest
import torch
import yaml

from kernelgenbench.reference_impls import vllm_quant_allspark as AS
from kernelgenbench.reference_impls import vllm_quant_awq as AWQ
from kernelgenbench.reference_impls import vllm_quant_cutlass as CUT
from kernelgenbench.reference_impls import vllm_quant_ggml as GG
from kernelgenbench.reference_impls import vllm_quant_gptq as GQ
from kernelgenbench.reference_impls.inline import module_text

MODULES = [GQ, AWQ, CUT, GG, AS]


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    # These references run many small ops; on a shared, loaded machine intra-op threads only contend.
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def _curated() -> dict:
    text = importlib.resources.files("kernelgenbench.data").joinpath("vllm_curated_quant.yaml").read_text()
    return yaml.safe_load(text)["ops"]


def _rel_err(out: torch.Tensor, ref: torch.Tensor) -> float:
    return float((out.float() - ref.float()).abs().max() / ref.float().abs().max())


# ---- the curated file and the modules ----


def test_modules_import_only_torch_math_and_stdlib():
    for mod in MODULES:
        tree = ast.parse(module_text(mod.__name__))  # the text records carry (reference modules written in)
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [(node.module or "").split(".")[0]]
            for name in names:
                assert name in ("torch", "math", "__future__") or name in sys.stdlib_module_names, (mod.__name__, name)


def test_curated_entries_parse_and_name_their_functions():
    ops = _curated()
    for op, e in ops.items():
        schema = torch._C.parse_schema(e["schema"])
        assert schema.name == op
        mod = importlib.import_module(e["module"])
        assert callable(getattr(mod, e["function"])) and callable(getattr(mod, e["inputs"]))
        assert e["correctness"] and e["performance"], op
        for key in e["grid_map"].values():
            assert isinstance(key, str)


@pytest.mark.parametrize("op", sorted(_curated()))
def test_correctness_cases_give_every_schema_argument_and_run(op):
    e = _curated()[op]
    mod = importlib.import_module(e["module"])
    names = [a.name for a in torch._C.parse_schema(e["schema"]).arguments]
    for case in e["correctness"][:3]:
        args = getattr(mod, e["inputs"])(dict(e.get("fixed", {}), **case), seed=1, device="cpu")
        assert list(args) == names, (op, list(args))
        before = {k: v.clone() for k, v in args.items() if isinstance(v, torch.Tensor)}
        res = getattr(mod, e["function"])(**args)
        outs = [res] if isinstance(res, torch.Tensor) else [args["out"]] if "out" in args else [args[names[0]]]
        for out in outs:
            assert torch.isfinite(out.float()).all() and out.float().abs().sum() > 0, op
        mutable = {a.name for a in torch._C.parse_schema(e["schema"]).arguments if a.alias_info and a.alias_info.is_write}
        for k, v in before.items():
            if k not in mutable:
                assert torch.equal(v, args[k]), f"{op} wrote its input {k}"


def test_fixed_alone_is_a_valid_point():
    for e in _curated().values():
        mod = importlib.import_module(e["module"])
        if not e["grid_map"]:
            getattr(mod, e["inputs"])(dict(e["fixed"]), seed=0, device="cpu")


# ---- GPTQ ----


@pytest.mark.parametrize("bit", [2, 3, 4, 8])
def test_gptq_pack_unpack_round_trip_and_stream_order(bit):
    g = torch.Generator().manual_seed(bit)
    q = torch.randint(0, 2**bit, (64, 24), generator=g)
    words = GQ.pack_stream(q, bit, 0)
    assert words.shape == (64 * bit // 32, 24) and words.dtype == torch.int32
    assert torch.equal(GQ.unpack_stream(words, bit, 0), q)
    assert torch.equal(GQ.unpack_stream(GQ.pack_stream(q.t(), bit, 1), bit, 1), q.t())
    # Row k sits at bits k*bit .. of the column's stream (reconstruct_gptq_3bit_kernel reads row 10 as
    # (w1 >> 30) | ((w2 << 2) & 4)).
    col = [int(v) & 0xFFFFFFFF for v in words[:, 0]]
    stream = sum(w << (32 * i) for i, w in enumerate(col))
    assert [(stream >> (k * bit)) & (2**bit - 1) for k in range(64)] == q[:, 0].tolist()


def test_exllama_shuffle_matches_the_kernel_layouts():
    # qdq_4.cuh: even values to the low half-word, odd values to the high half-word.
    w4 = torch.tensor([[0x76543210]], dtype=torch.int32)
    assert GQ.exllama_shuffle_words(w4, 4).item() & 0xFFFFFFFF == 0x75316420
    # qdq_2.cuh: values 0..15 = 2-bit values (j % 4); evens to bits 0..15, odds to 16..31.
    vals = [j % 4 for j in range(16)]
    w2 = torch.tensor([[sum(v << (2 * j) for j, v in enumerate(vals)) - 2**32]], dtype=torch.int32)
    exp = sum(vals[2 * i] << (2 * i) for i in range(8)) | sum(vals[2 * i + 1] << (16 + 2 * i) for i in range(8))
    assert GQ.exllama_shuffle_words(w2, 2).item() & 0xFFFFFFFF == exp
    # qdq_3.cuh's diagram: word 0 is "v9997775 55333111 u8886664 44222000" (u = value 30, v = 31, lsb).
    vals3 = list(range(8)) * 4
    stream = sum(v << (3 * j) for j, v in enumerate(vals3))
    w3 = torch.tensor([[(stream >> (32 * i)) & 0xFFFFFFFF] for i in range(3)], dtype=torch.int64)
    out = [int(x) & 0xFFFFFFFF for x in GQ.exllama_shuffle_words(GQ._to_int32(w3), 3)[:, 0]]
    word0 = sum(vals3[2 * i] << (3 * i) for i in range(5)) | sum(vals3[2 * i + 1] << (16 + 3 * i) for i in range(5))
    word0 |= (vals3[30] & 1) << 15 | (vals3[31] & 1) << 31
    assert out[0] == word0
    assert (out[1] >> 15) & 1 == (vals3[30] >> 1) & 1 and (out[2] >> 31) & 1 == (vals3[31] >> 2) & 1


@pytest.mark.parametrize("bit", [2, 3, 4, 8])
def test_gptq_shuffle_is_gather_then_in_word_shuffle(bit):
    g = torch.Generator().manual_seed(0)
    q = torch.randint(0, 2**bit, (128, 16), generator=g)
    perm = torch.randperm(128, generator=g).to(torch.int32)
    w = GQ.pack_stream(q, bit, 0)
    GQ.gptq_shuffle(w, perm, bit)
    assert torch.equal(w, GQ.exllama_shuffle_words(GQ.pack_stream(q[perm.long()], bit, 0), bit))
    assert torch.equal(GQ.unpack_stream(GQ.exllama_unshuffle_words(w, bit), bit, 0), q[perm.long()])
    w2 = GQ.pack_stream(q, bit, 0)
    GQ.gptq_shuffle(w2, torch.empty(0, dtype=torch.int32), bit)
    assert torch.equal(GQ.unpack_stream(GQ.exllama_unshuffle_words(w2, bit), bit, 0), q)


@pytest.mark.parametrize("bit", [2, 3, 4, 8])
@pytest.mark.parametrize("use_exllama,act_order,v2", [(True, False, False), (True, True, True), (False, True, False)])
def test_gptq_gemm_equals_dequantize_then_matmul(bit, use_exllama, act_order, v2):
    p = dict(m=5, k=256, n=32, bit=bit, group_size=64, act_order=act_order, use_v2_format=v2, use_exllama=use_exllama)
    args = GQ.make_gptq_gemm_inputs(p, seed=3, device="cpu")
    dense = GQ.make_gptq_problem(p, torch.Generator().manual_seed(3))
    assert torch.equal(GQ.unpack_stream(dense["qweight"], bit, 0), dense["q"])
    ref = args["a"].float() @ dense["w_dq"].float()
    out = GQ.gptq_gemm(**args)
    assert out.dtype == torch.float16 and out.shape == (5, 32)
    assert (out.float() - ref).abs().max() < 1e-2
    if v2 is False:  # the v1 zero is the stored value + 1
        stored = GQ.unpack_stream(args["b_gptq_qzeros"], bit, 1)
        assert torch.equal(stored + 1, dense["zero"])


@pytest.mark.parametrize("bit,limit", [(2, 0.6), (3, 0.3), (4, 0.15), (8, 0.01)])
def test_gptq_quantization_is_close_to_the_dense_weight(bit, limit):
    d = GQ.make_gptq_problem(dict(k=256, n=64, bit=bit, group_size=64, act_order=True), torch.Generator().manual_seed(0))
    err = float((d["w_dq"].float() - d["w"]).norm() / d["w"].norm())
    assert err < limit


# ---- AWQ ----


def test_awq_nibble_order_and_round_trip():
    cols = torch.arange(8).view(1, 8)
    word = AWQ.pack_awq(cols).item() & 0xFFFFFFFF
    # nibble i holds column AWQ_ORDER[i] = [0, 2, 4, 6, 1, 3, 5, 7]
    assert [(word >> (4 * i)) & 0xF for i in range(8)] == [0, 2, 4, 6, 1, 3, 5, 7]
    q = torch.randint(0, 16, (32, 64), generator=torch.Generator().manual_seed(0))
    assert torch.equal(AWQ.unpack_awq(AWQ.pack_awq(q)), q)


def test_awq_dequantize_matches_vllm_test_reference():
    # tests/kernels/quantization/test_awq_triton.py: shifts 0..28, then columns reordered by [0,4,1,5,2,6,3,7].
    g = torch.Generator().manual_seed(1)
    qweight = torch.randint(0, 2**31 - 1, (128, 8), generator=g, dtype=torch.int32)
    qzeros = torch.randint(0, 2**31 - 1, (2, 8), generator=g, dtype=torch.int32)
    scales = torch.rand(2, 64, generator=g).half()
    shifts = torch.arange(0, 32, 4)
    rev = torch.arange(64).view(-1, 8)[:, [0, 4, 1, 5, 2, 6, 3, 7]].reshape(-1)

    def unpack(t):
        return ((t[:, :, None] >> shifts[None, None, :]).reshape(t.shape[0], -1)[:, rev]) & 0xF

    ref = (unpack(qweight) - unpack(qzeros).repeat_interleave(64, 0)).half() * scales.repeat_interleave(64, 0)
    assert torch.equal(AWQ.dequantize_awq(qweight, qzeros, scales), ref)


def test_awq_gemm_equals_dequantize_then_matmul():
    args = AWQ.make_awq_gemm_inputs(dict(m=7, k=256, n=128, group_size=64, split_k_iters=8), seed=0, device="cpu")
    w = AWQ.dequantize_awq(args["_kernel"], args["_zeros"], args["_scaling_factors"])
    gen = torch.Generator().manual_seed(0)
    dense = torch.randn(256, 128, generator=gen) / 16
    q, z, s = AWQ.quantize_awq(dense, 64)
    assert torch.equal(w, (q - z.repeat_interleave(64, 0)).half() * s.repeat_interleave(64, 0))
    assert _rel_err(w, dense) < 0.1
    out = AWQ.awq_gemm(**args)
    assert (out.float() - args["_in_feats"].float() @ w.float()).abs().max() < 1e-2


# ---- CUTLASS ----


def _baseline_scaled_mm(a, b, sa, sb, bias):
    # tests/kernels/utils.py baseline_scaled_mm: numpy-style group broadcast of the scales.
    def expand(t, shape):
        for i, s in enumerate(shape):
            if t.shape[i] not in (1, s):
                t = t.repeat_interleave(s // t.shape[i], dim=i)
        return t

    out = torch.mm(expand(sa, a.shape) * a.float(), expand(sb, b.shape) * b.float())
    return out + bias.float() if bias is not None else out


@pytest.mark.parametrize("a_dtype", ["int8", "float8_e4m3fn"])
@pytest.mark.parametrize("ga,gb", [((1, -1), (-1, 1)), ((-1, -1), (-1, -1)), ((1, -1), (-1, -1)), ((1, 128), (128, 128))])
def test_cutlass_scaled_mm_matches_vllm_baseline(a_dtype, ga, gb):
    p = dict(m=33, n=256, k=256, a_dtype=a_dtype, a_scale_group_shape=ga, b_scale_group_shape=gb,
             use_bias=ga == (1, -1), out_dtype="bfloat16")
    args = CUT.make_cutlass_scaled_mm_inputs(p, seed=0, device="cpu")
    assert args["b"].stride(0) == 1 and args["a"].dtype == getattr(torch, a_dtype)
    CUT.cutlass_scaled_mm(**args)
    ref = _baseline_scaled_mm(args["a"], args["b"], args["a_scales"], args["b_scales"], args["bias"])
    torch.testing.assert_close(args["out"].float(), ref, atol=3e-2, rtol=1.6e-2)


@pytest.mark.parametrize("m,n,k", [(8, 256, 1024), (300, 128, 256)])
def test_cutlass_scaled_mm_block_scales_when_k_exceeds_n_or_m_exceeds_k(m, n, k):
    # Block-wise scales are [M, K/128] and [K/128, N/128]; expanding them once sliced rows where it meant
    # columns and raised for K > N or M > K.
    p = dict(m=m, n=n, k=k, a_dtype="float8_e4m3fn", a_scale_group_shape=(1, 128), b_scale_group_shape=(128, 128),
             use_bias=False, out_dtype="bfloat16")
    args = CUT.make_cutlass_scaled_mm_inputs(p, seed=0, device="cpu")
    assert tuple(args["a_scales"].shape) == (m, k // 128) and tuple(args["b_scales"].shape) == (k // 128, n // 128)
    CUT.cutlass_scaled_mm(**args)
    ref = _baseline_scaled_mm(args["a"], args["b"], args["a_scales"], args["b_scales"], args["bias"])
    torch.testing.assert_close(args["out"].float(), ref, atol=3e-2, rtol=1.6e-2)


@pytest.mark.parametrize("per_token", [True, False])
def test_cutlass_scaled_mm_azp_equals_shifted_activations(per_token):
    args = CUT.make_cutlass_scaled_mm_azp_inputs(dict(m=32, n=64, k=128, out_dtype="float16", use_bias=True,
                                                      azp_per_token=per_token), seed=0, device="cpu")
    a, b = args["a"].long(), args["b"].long()
    colsum = b.sum(0)
    azp = args["azp"].long().reshape(-1, 1) if per_token else args["azp_adj"].long().reshape(-1)[:1] // colsum[:1]
    if not per_token:
        assert torch.equal(args["azp_adj"].long().reshape(-1), azp * colsum)
    ref = args["a_scales"].double() * args["b_scales"].double() * ((a - azp) @ b).double() + args["bias"].double()
    CUT.cutlass_scaled_mm_azp(**args)
    torch.testing.assert_close(args["out"].double(), ref, atol=1e-2, rtol=2e-3)


def test_cutlass_pack_scale_fp8_lookup_table():
    s = torch.tensor([[0.5, 2.0], [0.0625, 1.0]]).to(torch.float8_e4m3fn)
    out = CUT.cutlass_pack_scale_fp8(s)
    assert out.dtype == torch.float8_e4m3fn and out.shape == (32,)
    assert out[:8].float().tolist() == [-4.0, -3.5, -3.0, -2.5, -2.0, -1.5, -1.0, -0.5]
    # -7 * 2 = -14 and -5 * 2 = -10 are exact; 1.0 * -7 = -7 exact in e4m3.
    assert out[8:16].float().tolist() == [-16.0, -14.0, -12.0, -10.0, -8.0, -6.0, -4.0, -2.0]
    # 0.0625 * -7 = -0.4375 is exact; the table rounds to nearest where it is not (e4m3 has 3 mantissa bits).
    odd = CUT.cutlass_pack_scale_fp8(torch.tensor([0.875]).to(torch.float8_e4m3fn)).float().tolist()
    # -6.125, -4.375 and -2.625 are not e4m3 values: nearest, ties to even (-2.625 -> -2.5).
    assert odd == [-7.0, -6.0, -5.0, -4.5, -3.5, -2.5, -1.75, -0.875]


# ---- GGML ----


def _h(b: bytes, off: int) -> float:
    return struct.unpack_from("<e", b, off)[0]


def _scalar_dequant(b: bytes, qtype: int) -> list[float]:
    """One block, transcribed loop by loop from dequantize.cuh / ggml's dequantize_row_* (float math)."""
    y = [0.0] * GG.GGML_TYPES[qtype][1]
    if qtype == 2:  # Q4_0
        d = _h(b, 0)
        for j in range(16):
            y[j], y[j + 16] = d * ((b[2 + j] & 0xF) - 8), d * ((b[2 + j] >> 4) - 8)
    elif qtype == 6:  # Q5_0
        d, qh = _h(b, 0), struct.unpack_from("<I", b, 2)[0]
        for j in range(16):
            xh0 = ((qh >> j) << 4) & 0x10
            xh1 = (qh >> (j + 12)) & 0x10
            y[j], y[j + 16] = d * (((b[6 + j] & 0xF) | xh0) - 16), d * (((b[6 + j] >> 4) | xh1) - 16)
    elif qtype == 10:  # Q2_K, dequantize_block_q2_K with 64 threads
        dall, dmin = _h(b, 80), _h(b, 82)
        for tid in range(64):
            n, ln = tid // 32, tid % 32
            is_ = 8 * n + ln // 16
            q = b[16 + 32 * n + ln]
            for s in range(4):
                sc = b[is_ + 2 * s]
                y[128 * n + ln + 32 * s] = dall * ((sc & 0xF) * ((q >> (2 * s)) & 3)) - dmin * (sc >> 4)
    elif qtype == 11:  # Q3_K
        d = _h(b, 108)
        sc = b[96:108]
        for tid in range(64):
            r = tid // 4
            t, is0 = r // 2, r % 2
            l0 = 16 * is0 + 4 * (tid % 4)
            n, j = t // 4, t % 4
            m = 1 << (4 * n + j)
            is_ = 8 * n + 2 * j + is0
            shift = 2 * j
            if is_ < 4:
                us = (sc[is_] & 0xF) | (((sc[is_ + 8] >> 0) & 3) << 4)
            elif is_ < 8:
                us = (sc[is_] & 0xF) | (((sc[is_ + 4] >> 2) & 3) << 4)
            elif is_ < 12:
                us = (sc[is_ - 8] >> 4) | (((sc[is_] >> 4) & 3) << 4)
            else:
                us = (sc[is_ - 8] >> 4) | (((sc[is_ - 4] >> 6) & 3) << 4)
            dl = d * (us - 32)
            for ln in range(l0, l0 + 4):
                qv = ((b[32 + 32 * n + ln] >> shift) & 3) - (0 if b[ln] & m else 4)
                y[128 * n + 32 * j + ln] = dl * qv
    elif qtype in (12, 13):  # Q4_K / Q5_K via get_scale_min_k4
        dall, dmin = _h(b, 0), _h(b, 2)
        s = b[4:16]

        def sm(j):
            if j < 4:
                return s[j] & 63, s[j + 4] & 63
            return (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4), (s[j + 4] >> 4) | ((s[j] >> 6) << 4)

        for il in range(4):
            (s1, m1), (s2, m2) = sm(2 * il), sm(2 * il + 1)
            for lane in range(32):
                if qtype == 12:
                    q = b[16 + 32 * il + lane]
                    lo, hi = q & 0xF, q >> 4
                else:
                    q, qh = b[48 + 32 * il + lane], b[16 + lane]
                    lo = (q & 0xF) + (16 if qh & (1 << (2 * il)) else 0)
                    hi = (q >> 4) + (16 if qh & (2 << (2 * il)) else 0)
                y[64 * il + lane] = dall * s1 * lo - dmin * m1
                y[64 * il + 32 + lane] = dall * s2 * hi - dmin * m2
    elif qtype == 14:  # Q6_K
        d = _h(b, 208)
        sc = struct.unpack_from("<16b", b, 192)
        for tid in range(64):
            ip, il = tid // 32, tid % 32
            is_ = 8 * ip + il // 16
            ql0, ql32, qh = b[64 * ip + il], b[64 * ip + il + 32], b[128 + 32 * ip + il]
            base = 128 * ip + il
            y[base] = d * sc[is_] * (((ql0 & 0xF) | (((qh >> 0) & 3) << 4)) - 32)
            y[base + 32] = d * sc[is_ + 2] * (((ql32 & 0xF) | (((qh >> 2) & 3) << 4)) - 32)
            y[base + 64] = d * sc[is_ + 4] * (((ql0 >> 4) | (((qh >> 4) & 3) << 4)) - 32)
            y[base + 96] = d * sc[is_ + 6] * (((ql32 >> 4) | (((qh >> 6) & 3) << 4)) - 32)
    else:
        raise AssertionError(qtype)
    return y


@pytest.mark.parametrize("qtype", GG.MMQ_TYPES)
def test_ggml_quantize_dequantize_round_trip(qtype):
    name, bsize, tsize = GG.GGML_TYPES[qtype]
    w = torch.randn(8, 512, generator=torch.Generator().manual_seed(qtype)) / 20
    blocks, dense = GG.quantize_weight(w, qtype)
    assert blocks.dtype == torch.uint8 and blocks.shape == (8, 512 // bsize * tsize)
    assert torch.equal(GG.dequantize_blocks(blocks, qtype), dense), name
    assert _rel_err(dense, w) < 0.5  # a real quantization of w, not noise


@pytest.mark.parametrize("qtype", [2, 6, 10, 11, 12, 13, 14])
def test_ggml_block_layout_matches_the_kernel_loops(qtype):
    _, bsize, tsize = GG.GGML_TYPES[qtype]
    g = torch.Generator().manual_seed(100 + qtype)
    raw = torch.randint(0, 256, (3, tsize), generator=g, dtype=torch.uint8)
    # Keep the half fields finite and small: random bytes may spell inf/NaN.
    for off in {2: [0], 6: [0], 10: [80, 82], 11: [108], 12: [0, 2], 13: [0, 2], 14: [208]}[qtype]:
        raw[:, off : off + 2] = torch.rand(3, generator=g).mul(0.1).half().view(torch.uint8).view(3, 2)
    got = GG.dequantize_blocks(raw.reshape(1, -1), qtype).reshape(3, bsize)
    for i in range(3):
        assert got[i].tolist() == pytest.approx(_scalar_dequant(bytes(raw[i].tolist()), qtype), rel=1e-6, abs=1e-7)


def test_ggml_dequantize_rounds_in_half_like_the_kernel():
    w = torch.randn(4, 256, generator=torch.Generator().manual_seed(0)) / 16
    blocks, dense = GG.quantize_weight(w, 12)
    out = GG.ggml_dequantize(blocks, 12, 4, 256, torch.float32)
    assert out.dtype == torch.float32
    assert torch.equal(out, out.half().float())  # half precision, as dequantize.cuh produces
    assert (out - dense).abs().max() <= dense.abs().max() * 2**-9
    assert GG.ggml_dequantize(blocks, 12, 4, 256, None).dtype == torch.float16


def test_q8_1_roundtrip_is_blockwise_absmax_with_roundf():
    x = torch.tensor([[127.0, 0.5 * 127 / 127, -63.5] + [0.0] * 29])
    xq = GG.q8_1_roundtrip(x)
    assert xq[0, 0] == 127.0 and xq[0, 1] == 1.0 and xq[0, 2] == -64.0  # halves away from zero


@pytest.mark.parametrize("qtype", [2, 8, 11, 14])
def test_ggml_mul_mat_equals_dequantize_then_matmul(qtype):
    args = GG.make_ggml_mul_mat_inputs(dict(quant_type=qtype, hidden_size=512, row=64, num_tokens=5,
                                            dtype="float32"), seed=0, device="cpu")
    w = GG.dequantize_blocks(args["W"], qtype)
    ref = args["X"].float() @ w.t()
    for fn in (GG.ggml_mul_mat_a8, GG.ggml_mul_mat_vec_a8):
        out = fn(**args)
        assert out.shape == (5, 64) and out.dtype == torch.float32
        assert (out - ref).abs().max() < 5e-2  # Q8_1 activations: within the curated tolerance
        assert (out - ref).abs().max() > 0  # ... but the activations really are quantized


def test_ggml_moe_matches_per_token_products():
    p = dict(quant_type=12, num_tokens=9, hidden_size=256, row=32, num_experts=6, top_k=3, dtype="float32")
    a = GG.make_ggml_moe_a8_inputs(p, seed=0, device="cpu")
    v = GG.make_ggml_moe_a8_vec_inputs(p, seed=0, device="cpu")
    assert torch.equal(a["X"], v["X"]) and torch.equal(a["W"], v["W"])
    ids = a["sorted_token_ids"]
    valid = ids[ids < 27]
    assert sorted(valid.tolist()) == list(range(27)) and int(a["num_tokens_post_padded"]) % 4 == 0
    ya, yv = GG.ggml_moe_a8(**a), GG.ggml_moe_a8_vec(**v)
    torch.testing.assert_close(ya, yv)
    xq = GG.q8_1_roundtrip(v["X"])
    t, j = 4, 2
    e = int(v["topk_ids"][t, j])
    ref = xq[t] @ GG.dequantize_blocks(v["W"][e], 12).t()
    torch.testing.assert_close(yv[t * 3 + j], ref)


def test_ggml_type_names_and_unknown_types():
    assert GG.ggml_type_id("GGMLQuantizationType.IQ4_NL") == 20 and GG.ggml_type_id("Q4_K") == 12
    assert GG.ggml_type_id(14) == 14 and GG.ggml_type_id("14") == 14
    with pytest.raises(ValueError, match="TQ1_0"):
        GG.ggml_type_id("GGMLQuantizationType.TQ1_0")
    with pytest.raises(ValueError, match="not implemented"):
        GG.dequantize_blocks(torch.zeros(1, 54, dtype=torch.uint8), 34)


# ---- AllSpark ----


@pytest.mark.parametrize("k,n", [(128, 64), (1072, 272), (208, 592)])
def test_allspark_n32k16_map_is_a_bijection_and_repack_round_trips(k, n):
    src, dst = AS.n32k16_index(k, n)
    assert src.numel() == k * n and src.unique().numel() == k * n and dst.unique().numel() == k * n
    g = torch.Generator().manual_seed(0)
    q = torch.randint(0, 256, (k, n), generator=g, dtype=torch.int32).to(torch.uint8)
    s = torch.rand(1, n, generator=g).half()
    qr, sr, zr = AS.repack_n32k16(q, s, None)
    n32 = (n + 31) // 32 * 32
    assert qr.shape == (n32, k) and sr.shape == (1, n32) and zr is None
    q2, s2 = AS.unpack_n32k16(qr, sr, k, n)
    assert torch.equal(q2, q) and torch.equal(s2, s.reshape(-1))


def test_allspark_first_tile_follows_the_repack_kernel():
    # Thread (warp 0, lane 0), fragment i = 0, j = 0..15: source row 0, columns 0..15 land at
    # destination row j % 8, column (j // 8) * 4 of the [N32/4, 4K] byte matrix.
    k, n = 64, 128
    q = (torch.arange(k * n) % 251).to(torch.uint8).view(k, n)
    qr, _, _ = AS.repack_n32k16(q, torch.ones(1, n).half(), None)
    flat = qr.reshape(n // 4, 4 * k)
    for j in range(16):
        assert flat[j % 8, (j // 8) * 4] == q[0, j]
    # scales: column l of each 32 goes to (l % 8) * 4 + l // 8
    s = torch.arange(n).half().view(1, n)
    _, sr, _ = AS.repack_n32k16(q, s, None)
    assert sr[0, (9 % 8) * 4 + 9 // 8] == 9


@pytest.mark.parametrize("has_zp", [False, True])
def test_allspark_gemm_equals_dense(has_zp):
    for factors in ([1, 4, 8], [13, 17, 67]):
        args = AS.make_allspark_inputs(dict(mnk_factors=factors, has_zp=has_zp, dtype="float16"), seed=0, device="cpu")
        m, nf, kf = factors
        w = torch.randn(kf * 16, nf * 16, generator=torch.Generator().manual_seed(0)) / math.sqrt(kf * 16)
        ref = args["a"].float() @ w
        out = AS.allspark_w8a16_gemm(**args)
        # the vLLM test's criterion: mean |out - ref| / mean |ref| < 0.04
        assert float((out.float() - ref).abs().mean() / ref.abs().mean()) < 0.04
        q, s = AS.unpack_n32k16(args["b_qweight"], args["b_scales"], kf * 16, nf * 16)
        zp = AS._unpermute(args["b_qzeros"], nf * 16) if has_zp else 0
        wq = ((q.int() - 128) - (zp if has_zp else 0)).half() * s
        assert (out.float() - args["a"].float() @ wq.float()).abs().max() < 1e-2


# ---- GGML i-quants: codebooks and block layouts against vLLM's ggml-common.h / dequantize.cuh ----

IQ_TYPES = [16, 17, 18, 19, 20, 21, 22, 23, 29]


def _ggml_common_tables() -> dict[str, list[int]]:
    import re

    from vllm_sources import read_member

    src = read_member("0.13.0", "csrc/quantization/gguf/ggml-common.h")
    tables = {}
    for t in ("iq2xxs_grid", "iq2xs_grid", "iq2s_grid", "iq3xxs_grid", "iq3xs_grid", "iq1s_grid_gpu",
              "ksigns_iq2xs", "kvalues_iq4nl"):
        body = re.search(re.escape(t) + r"\[\d*\]\s*=\s*\{(.*?)\};", src, re.S).group(1)
        tables[t] = [int(v, 0) for v in re.findall(r"-?0x[0-9a-fA-F]+|-?\d+", re.sub(r"//.*", "", body))]
    return tables


@pytest.fixture(scope="module")
def ggml_tables():
    return _ggml_common_tables()


def test_iq_codebooks_match_ggml_common_h(ggml_tables):
    for ours, theirs, width in [("iq2xxs", "iq2xxs_grid", 8), ("iq2xs", "iq2xs_grid", 8), ("iq2s", "iq2s_grid", 8),
                                ("iq3xxs", "iq3xxs_grid", 4), ("iq3s", "iq3xs_grid", 4)]:
        expect = [[(v >> (8 * j)) & 0xFF for j in range(width)] for v in ggml_tables[theirs]]
        assert GG.iq_grid(ours).long().tolist() == expect, ours
    # iq1s_grid_gpu: 8 values = low nibbles of bytes 0..3, then the high nibbles (the kernel's grid32 split)
    expect = [[(v >> (8 * j)) & 0xF for j in range(4)] + [(v >> (8 * j + 4)) & 0xF for j in range(4)]
              for v in ggml_tables["iq1s_grid_gpu"]]
    assert GG.iq_grid("iq1s").long().tolist() == expect
    assert GG._ksigns(torch.arange(128)).tolist() == ggml_tables["ksigns_iq2xs"]
    assert list(GG.KVALUES_IQ4NL) == ggml_tables["kvalues_iq4nl"]


def _u(b: bytes, off: int, n: int) -> int:
    return int.from_bytes(b[off : off + n], "little")


def _scalar_iq(b: bytes, qtype: int, T: dict) -> list[float]:
    """One i-quant block, transcribed loop by loop from dequantize.cuh's dequantize_block_iq* kernels."""
    y = [0.0] * 256
    f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]  # noqa: E731  float32 rounding
    ks, kv = T["ksigns_iq2xs"], T["kvalues_iq4nl"]

    def gbyte(table, idx, j):
        return (T[table][idx] >> (8 * j)) & 0xFF

    for tid in range(32):
        il, ib = tid // 8, tid % 8
        base = 32 * ib + 8 * il
        if qtype == 16:
            q2 = [_u(b, 2 + 2 * (4 * ib + t), 2) for t in range(4)]
            aux32 = q2[2] | (q2[3] << 16)
            d = f32(f32(_h(b, 0) * (0.5 + (aux32 >> 28))) * 0.25)
            signs = ks[(aux32 >> 7 * il) & 127]
            idx = b[2 + 8 * ib + il]
            for j in range(8):
                y[base + j] = f32(d * gbyte("iq2xxs_grid", idx, j)) * (-1 if signs & (1 << j) else 1)
        elif qtype in (17, 22):
            sc = b[66 + ib] if qtype == 17 else b[74 + ib]
            d = f32(f32(_h(b, 0) * (0.5 + ((sc >> 4 * (il // 2)) & 0xF))) * 0.25)
            if qtype == 17:
                q = _u(b, 2 + 2 * (4 * ib + il), 2)
                idx, signs, table = q & 511, ks[q >> 9], "iq2xs_grid"
            else:
                idx = b[2 + 4 * ib + il] | ((b[66 + ib] << (8 - 2 * il)) & 0x300)
                signs, table = b[2 + 32 + 4 * ib + il], "iq2s_grid"
            for j in range(8):
                y[base + j] = f32(d * gbyte(table, idx, j)) * (-1 if signs & (1 << j) else 1)
        elif qtype == 18:
            aux32 = _u(b, 2 + 64 + 4 * ib, 4)
            d = f32(f32(_h(b, 0) * (0.5 + (aux32 >> 28))) * 0.5)
            signs = ks[(aux32 >> 7 * il) & 127]
            g1, g2 = b[2 + 8 * ib + 2 * il], b[2 + 8 * ib + 2 * il + 1]
            for j in range(4):
                y[base + j] = f32(d * gbyte("iq3xxs_grid", g1, j)) * (-1 if signs & (1 << j) else 1)
                y[base + j + 4] = f32(d * gbyte("iq3xxs_grid", g2, j)) * (-1 if signs & (1 << (j + 4)) else 1)
        elif qtype == 21:
            qh = b[66 + ib]
            g1 = b[2 + 8 * ib + 2 * il] | ((qh << (8 - 2 * il)) & 256)
            g2 = b[2 + 8 * ib + 2 * il + 1] | ((qh << (7 - 2 * il)) & 256)
            d = f32(f32(_h(b, 0) * (0.5 + ((b[106 + ib // 2] >> 4 * (ib % 2)) & 0xF))) * 0.5)
            signs = b[74 + 4 * ib + il]
            for j in range(4):
                y[base + j] = f32(d * gbyte("iq3xs_grid", g1, j)) * (-1 if signs & (1 << j) else 1)
                y[base + j + 4] = f32(d * gbyte("iq3xs_grid", g2, j)) * (-1 if signs & (1 << (j + 4)) else 1)
        elif qtype == 19:
            qh = _u(b, 34 + 2 * ib, 2)
            delta = -1 - 0.125 if qh & 0x8000 else -1 + 0.125
            d = f32(_h(b, 0) * (2 * ((qh >> 12) & 7) + 1))
            g = T["iq1s_grid_gpu"][b[2 + 4 * ib + il] | (((qh >> 3 * il) & 7) << 8)] & 0xFFFFFFFF
            q = [(g >> (8 * j)) & 0xF for j in range(4)] + [(g >> (8 * j + 4)) & 0xF for j in range(4)]
            for j in range(8):
                y[base + j] = f32(d * (q[j] + delta))
        elif qtype == 29:
            sc = [_u(b, 48 + 2 * t, 2) for t in range(4)]
            u16 = (sc[0] >> 12) | ((sc[1] >> 8) & 0xF0) | ((sc[2] >> 4) & 0xF00) | (sc[3] & 0xF000)
            dscale = struct.unpack("<e", u16.to_bytes(2, "little"))[0]
            ib16 = 2 * ib + il // 2
            d = f32(dscale * (2 * ((sc[ib16 // 4] >> 3 * (ib16 % 4)) & 7) + 1))
            qh = b[32 + 2 * ib + il // 2]
            delta = -1 - 0.125 if qh & (0x08 << 4 * (il % 2)) else -1 + 0.125
            g = T["iq1s_grid_gpu"][b[4 * ib + il] | (((qh >> 4 * (il % 2)) & 7) << 8)] & 0xFFFFFFFF
            q = [(g >> (8 * j)) & 0xF for j in range(4)] + [(g >> (8 * j + 4)) & 0xF for j in range(4)]
            for j in range(8):
                y[base + j] = f32(d * (q[j] + delta))
        elif qtype == 20:  # eight 18-byte blocks of 32 make one 256-value kernel block
            blk = b[18 * ib : 18 * ib + 18]
            d = _h(blk, 0)
            for j in range(4):
                y[32 * ib + 4 * il + j] = f32(d * kv[blk[2 + 4 * il + j] & 0xF])
                y[32 * ib + 4 * il + j + 16] = f32(d * kv[blk[2 + 4 * il + j] >> 4])
        elif qtype == 23:
            ls = ((b[4 + ib // 2] >> 4 * (ib % 2)) & 0xF) | (((_u(b, 2, 2) >> 2 * ib) & 3) << 4)
            d = f32(_h(b, 0) * (ls - 32))
            for j in range(4):
                qv = b[8 + 16 * ib + 4 * il + j]
                y[32 * ib + 4 * il + j] = f32(d * kv[qv & 0xF])
                y[32 * ib + 4 * il + j + 16] = f32(d * kv[qv >> 4])
    return y


@pytest.mark.parametrize("qtype", IQ_TYPES)
def test_iq_block_layout_matches_the_kernel_loops(qtype, ggml_tables):
    _, bsize, tsize = GG.GGML_TYPES[qtype]
    per_kernel_block = 8 if qtype == 20 else 1  # IQ4_NL blocks are 32 values; the kernel walks 8 at a time
    g = torch.Generator().manual_seed(200 + qtype)
    raw = torch.randint(0, 256, (2 * per_kernel_block, tsize), generator=g, dtype=torch.uint8)
    half_offsets = {29: []}.get(qtype, [0])
    for off in half_offsets:
        raw[:, off : off + 2] = torch.rand(raw.shape[0], generator=g).mul(0.1).half().view(torch.uint8).view(-1, 2)
    if qtype == 29:  # the IQ1_M super scale lives in the top nibbles of the four scale words: keep it finite
        raw[:, 49::2] = (raw[:, 49::2] & 0x0F) | torch.tensor([0x00, 0x00, 0x00, 0x20], dtype=torch.uint8)
    got = GG.dequantize_blocks(raw.reshape(1, -1), qtype).reshape(-1, 256)
    for i in range(got.shape[0]):
        chunk = bytes(raw[i * per_kernel_block : (i + 1) * per_kernel_block].reshape(-1).tolist())
        assert got[i].tolist() == _scalar_iq(chunk, qtype, ggml_tables)


@pytest.mark.parametrize("qtype", IQ_TYPES)
def test_iq_quantize_dequantize_round_trip(qtype):
    w = torch.randn(4, 512, generator=torch.Generator().manual_seed(qtype)) / 20
    blocks, dense = GG.quantize_weight(w, qtype)
    assert torch.equal(GG.dequantize_blocks(blocks, qtype), dense)
    assert _rel_err(dense, w) < 1.0 and float((dense - w).norm() / w.norm()) < 0.7


def test_mmq_ops_reject_iq_types_and_vec_ops_take_them():
    args = GG.make_ggml_mul_mat_inputs(dict(quant_type=21, hidden_size=256, row=32, num_tokens=2, dtype="float32"),
                                       seed=0, device="cpu")
    with pytest.raises(ValueError, match="no MMQ kernel"):
        GG.ggml_mul_mat_a8(**args)
    out = GG.ggml_mul_mat_vec_a8(**args)
    ref = args["X"] @ GG.dequantize_blocks(args["W"], 21).t()
    assert (out - ref).abs().max() < 5e-2
