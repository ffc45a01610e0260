"""References for vLLM's GGUF/GGML ops at v0.13.0, with per-block-type quantizers/packers.

Ops: ggml_dequantize, ggml_mul_mat_vec_a8, ggml_mul_mat_a8, ggml_moe_a8, ggml_moe_a8_vec
(csrc/quantization/gguf/gguf_kernel.cu). A GGUF weight is a uint8 tensor [rows, bytes per row] of
consecutive blocks (struct layouts in csrc/quantization/gguf/ggml-common.h, element order as in
dequantize.cuh and gguf-py's quants.py); `type` is the GGMLQuantizationType id.

Block types: Q4_0 (2), Q4_1 (3), Q5_0 (6), Q5_1 (7), Q8_0 (8), Q2_K (10), Q3_K (11), Q4_K (12), Q5_K (13),
Q6_K (14) -- the ten that ggml_mul_mat_a8 and ggml_moe_a8 accept -- and the i-quants IQ2_XXS (16), IQ2_XS
(17), IQ3_XXS (18), IQ1_S (19), IQ4_NL (20), IQ3_S (21), IQ2_S (22), IQ4_XS (23), IQ1_M (29), which
ggml_dequantize, ggml_mul_mat_vec_a8 and ggml_moe_a8_vec also accept (codebooks from ggml-common.h).

The *_a8 ops first quantize X to Q8_1 (blocks of 32: d = amax / 127, q = roundf(x / d), d stored as half),
then take integer dot products with the weight's codes and apply the float scales. The references compute
dequant(W) @ dequant(Q8_1(X)) in float32 and round once to X.dtype. The kernels' offset/min terms of
Q4_0/Q4_1/Q5_x use the block sum of the unquantized X (held in half), which the reference does not model;
that and summation order are within the tolerance, not bit-exact.

The code lives in the package reference_impls/ggml/ (layout, codebooks, decode, quantize*, references,
inputs); this module re-exports what records and tests name.
"""

from __future__ import annotations

from kernelgenbench.reference_impls.ggml.codebooks import IQ1_DELTA, KVALUES_IQ4NL, _ksigns, iq_grid
from kernelgenbench.reference_impls.ggml.decode import dequantize_blocks
from kernelgenbench.reference_impls.ggml.inputs import (
    make_ggml_dequantize_inputs,
    make_ggml_moe_a8_inputs,
    make_ggml_moe_a8_vec_inputs,
    make_ggml_mul_mat_inputs,
)
from kernelgenbench.reference_impls.ggml.layout import GGML_TYPES, MMQ_TYPES, QK_K, ggml_type_id
from kernelgenbench.reference_impls.ggml.quantize import q8_1_roundtrip, quantize_weight
from kernelgenbench.reference_impls.ggml.references import (
    ggml_dequantize,
    ggml_moe_a8,
    ggml_moe_a8_vec,
    ggml_moe_get_block_size,
    ggml_mul_mat_a8,
    ggml_mul_mat_vec_a8,
)

__all__ = [
    "GGML_TYPES",
    "MMQ_TYPES",
    "QK_K",
    "ggml_type_id",
    "KVALUES_IQ4NL",
    "IQ1_DELTA",
    "iq_grid",
    "_ksigns",
    "dequantize_blocks",
    "quantize_weight",
    "q8_1_roundtrip",
    "ggml_dequantize",
    "ggml_mul_mat_vec_a8",
    "ggml_mul_mat_a8",
    "ggml_moe_a8",
    "ggml_moe_a8_vec",
    "ggml_moe_get_block_size",
    "make_ggml_dequantize_inputs",
    "make_ggml_mul_mat_inputs",
    "make_ggml_moe_a8_inputs",
    "make_ggml_moe_a8_vec_inputs",
]
