"""References for vLLM's Marlin family at v0.13.0, with GPTQ/AWQ/Marlin packers and the 2:4 compressor.

Ops: gptq_marlin_gemm, gptq_marlin_24_gemm, gptq_marlin_moe_repack, awq_marlin_moe_repack (the last two are
Python functions in vllm/_custom_ops.py that call gptq_marlin_repack / awq_marlin_repack per expert),
marlin_int4_fp8_preprocess.

The layouts are those of vLLM's own Python packers, which its tests check the CUDA kernels against
(vllm/model_executor/layers/quantization/utils/marlin_utils.py, marlin_utils_test.py,
marlin_utils_test_24.py, quant_utils.py), re-derived here:
- GPTQ packing: int32 [K / pf, N], value of row k in word k // pf at bits (k % pf) * bits (pf = 32 / bits).
- AWQ packing: int32 [K, N / pf], columns interleaved inside every pf ([0,2,4,6,1,3,5,7] for 4 bits,
  [0,2,1,3] for 8), value i of a word at bits i * bits.
- Marlin weight: the [K, N] codes cut into 16x16 tiles (32x32 when is_a_8bit), tiles laid out row-major as
  [K / 16, 16 * N], every 1024 consecutive values permuted by the fragment permutation below, then
  pf consecutive values packed per int32 (value i at bits i * bits): int32 [K / 16, N * 16 / pf].
- Marlin scales [groups, N]: permuted in chunks of 64 (grouped) or 32 (channel-wise, one group);
  zero points (uint4/uint8 types) permuted like grouped scales, interleaved, then packed along N;
  bias permuted like channel-wise scales.
- Dequantization: w = (q - bias) * s for uint4b8 / uint8b128, (q - zp) * s for uint4 / uint8 with zero
  points, in the activation dtype; fp8 e4m3 weights (8-bit codes = fp8 bytes) are shifted into the
  activation format without their exponent bias, which vLLM folds into the scales (x 2**8 for fp16,
  x 2**120 for bf16), so w = (fp8 * 2**-bias) * s_fused; act-order rows are stored sorted by group (perm = argsort(g_idx)) and
  the kernel multiplies a[:, perm] by them. Accumulation in fp32, output in the activation dtype.
- 2:4 (gptq_marlin_24_gemm, fp16 only): the [K, N] codes have at most 2 non-zero (after removing the
  type's bias) of every 4 consecutive K per column; the kept values form [K / 2, N] (Marlin-packed with
  the 2:4 fragment permutation) and their positions a CUTLASS int16 metadata matrix (2 bits per kept
  value, 4 per int16), reordered as CUTLASS's ColumnMajorInterleaved<2> layout and viewed as [K / 32, 2 N].

- int8 activations (W4A8, a_scales = per-token float scales): 4-bit weights in 32x32 Marlin tiles
  (is_a_8bit), scales always under the 32-permutation, zero points without the column interleave; int8 MMAs
  on (q - zero), grouped scales used as the unsigned 16-bit integers their bits spell (vLLM stores
  round(s / max(s) * 4096) there and moves max(s) / 4096 into a_scales), int32 accumulation, then
  x a_scales[m] in float (channel-wise float scales last); output in b_scales' dtype.

- fp8 activations (W4A8-FP8, uint4b8 only): the weight nibbles are those of marlin_int4_fp8_preprocess
  (sign<<3 | magnitude) which the kernel reads as e4m3 subnormals +-(mag + sign) * 2**-9 = (q - 8) / 512, so
  vLLM multiplies the scales by 512; fp8 MMAs, fp32 accumulation, x a_scales[m]; output in b_scales' dtype.

- HQQ (is_zp_float, fp16, uint4): float zero points [groups, N] permuted like grouped scales,
  w = (q - zp) * s in fp16.

- fp4 e2m1 weights with 16-bit activations: NVFP4 (group 16; the e4m3 group scales travel as the S0E5M3
  bytes of half(s * 2**7), columns swapped [0,2,1,3] inside every 4 after the Marlin permutation; global
  scale x 2**(14 or 126 - 7) for fp16 / bf16) and MXFP4 (group 32, e8m0 scales, the same [0,2,1,3] swap):
  w = e2m1(code) * s (* global).

Not covered (the references raise): fp4 weights with fp8 activations and AWQ (uint4 + zero points) with
fp8 activations.

The code lives in the package reference_impls/marlin/ (formats, layout, quantize, sparse24, gemm, repack,
inputs, revisions); this module re-exports what records and tests name.
"""

from __future__ import annotations

from kernelgenbench.reference_impls.marlin.formats import (
    E2M1_VALUES,
    FP4_ID,
    FP8_ID,
    MARLIN_TYPES,
    _type,
    e2m1_decode,
    fp8_act_codes,
    fp8_exponent_bias,
    nvfp4_scales_decode,
    nvfp4_scales_encode,
    scalar_type_id,
)
from kernelgenbench.reference_impls.marlin.gemm import gptq_marlin_24_gemm, gptq_marlin_gemm
from kernelgenbench.reference_impls.marlin.inputs import (
    _dense,
    _g_idx,
    make_awq_marlin_moe_repack_inputs,
    make_gptq_marlin_24_gemm_inputs,
    make_gptq_marlin_gemm_inputs,
    make_gptq_marlin_moe_repack_inputs,
    make_marlin_24_problem,
    make_marlin_fp4_inputs,
    make_marlin_fp8_act_inputs,
    make_marlin_hqq_inputs,
    make_marlin_int4_fp8_preprocess_inputs,
    make_marlin_int8_inputs,
    make_marlin_problem,
)
from kernelgenbench.reference_impls.marlin.layout import (
    _chunk_perm,
    awq_pack,
    awq_unpack,
    gptq_pack,
    marlin_pack,
    marlin_unpack,
    marlin_zero_points,
    marlin_zero_points_a8,
    marlin_zero_points_unpack,
    pack_along,
    pack_free_rows,
    permute_bias,
    permute_scales,
    scale_perms,
    scale_perms_24,
    unpack_along,
    weight_perm,
    weight_perm_24,
)
from kernelgenbench.reference_impls.marlin.quantize import dequantize, fp8_dequantize, quantize_groups
from kernelgenbench.reference_impls.marlin.repack import (
    awq_marlin_moe_repack,
    gptq_marlin_moe_repack,
    marlin_int4_fp8_preprocess,
)
from kernelgenbench.reference_impls.marlin.revisions import (
    awq_marlin_moe_repack_v033,
    gptq_marlin_moe_repack_v033,
    make_awq_marlin_moe_repack_inputs_v033,
    make_awq_marlin_moe_repack_inputs_v034,
    make_gptq_marlin_moe_repack_inputs_v033,
    make_gptq_marlin_moe_repack_inputs_v034,
    make_marlin_gemm_inputs_v033,
    make_marlin_gemm_inputs_v034,
    marlin_gemm_v033,
    marlin_gemm_v034,
)
from kernelgenbench.reference_impls.marlin.sparse24 import _meta_offsets, compress_24, decompress_24, mask_24

__all__ = [
    "scalar_type_id",
    "MARLIN_TYPES",
    "FP8_ID",
    "FP4_ID",
    "E2M1_VALUES",
    "fp8_exponent_bias",
    "weight_perm",
    "weight_perm_24",
    "scale_perms",
    "scale_perms_24",
    "permute_scales",
    "permute_bias",
    "pack_along",
    "unpack_along",
    "gptq_pack",
    "awq_pack",
    "awq_unpack",
    "marlin_pack",
    "marlin_unpack",
    "marlin_zero_points",
    "marlin_zero_points_unpack",
    "quantize_groups",
    "dequantize",
    "fp8_dequantize",
    "compress_24",
    "decompress_24",
    "mask_24",
    "gptq_marlin_gemm",
    "marlin_zero_points_a8",
    "e2m1_decode",
    "nvfp4_scales_encode",
    "nvfp4_scales_decode",
    "fp8_act_codes",
    "gptq_marlin_24_gemm",
    "gptq_marlin_moe_repack",
    "pack_free_rows",
    "awq_marlin_moe_repack",
    "marlin_int4_fp8_preprocess",
    "make_marlin_problem",
    "make_marlin_int8_inputs",
    "make_marlin_fp4_inputs",
    "make_marlin_hqq_inputs",
    "make_marlin_fp8_act_inputs",
    "make_gptq_marlin_gemm_inputs",
    "make_marlin_24_problem",
    "make_gptq_marlin_24_gemm_inputs",
    "make_gptq_marlin_moe_repack_inputs",
    "make_awq_marlin_moe_repack_inputs",
    "make_marlin_int4_fp8_preprocess_inputs",
    "gptq_marlin_moe_repack_v033",
    "awq_marlin_moe_repack_v033",
    "make_gptq_marlin_moe_repack_inputs_v033",
    "make_gptq_marlin_moe_repack_inputs_v034",
    "make_awq_marlin_moe_repack_inputs_v033",
    "make_awq_marlin_moe_repack_inputs_v034",
    "marlin_gemm_v033",
    "marlin_gemm_v034",
    "make_marlin_gemm_inputs_v033",
    "make_marlin_gemm_inputs_v034",
    "_chunk_perm",
    "_dense",
    "_g_idx",
    "_meta_offsets",
    "_type",
]
