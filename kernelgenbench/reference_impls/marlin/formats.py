"""Marlin's weight types: vLLM ScalarType ids, and the fp8/fp4 codes and scale encodings of its float formats."""

from __future__ import annotations

import torch


def scalar_type_id(exponent: int, mantissa: int, signed: bool, bias: int, finite_only: bool, nan_repr: int) -> int:
    """vllm.scalar_type.ScalarType.id: the fields packed little-end first (8, 8, 1, 32, 1, 8 bits)."""
    val, off = 0, 0
    for member, width in ((exponent, 8), (mantissa, 8), (int(signed), 1), (bias, 32), (int(finite_only), 1),
                          (nan_repr, 8)):
        val |= (int(member) & ((1 << width) - 1)) << off
        off += width
    return val


# name -> (id, bits, bias, has_zp); integer ScalarTypes keep the default nan_repr IEEE_754 (= 1).
MARLIN_TYPES = {
    "uint4b8": (scalar_type_id(0, 4, False, 8, False, 1), 4, 8, False),
    "uint8b128": (scalar_type_id(0, 8, False, 128, False, 1), 8, 128, False),
    "uint4": (scalar_type_id(0, 4, False, 0, False, 1), 4, 0, True),
    "uint8": (scalar_type_id(0, 8, False, 0, False, 1), 8, 0, True),
    # float8_e4m3fn = ScalarType.float_(4, 3, True, NanRepr.EXTD_RANGE_MAX_MIN = 2): codes are fp8 bytes
    "float8_e4m3fn": (scalar_type_id(4, 3, True, 0, True, 2), 8, 0, False),
}
FP8_ID = MARLIN_TYPES["float8_e4m3fn"][0]


# float4_e2m1f = ScalarType.float_(2, 1, True, NanRepr.NONE = 0): NVFP4 (fp8 e4m3 scales, group 16, global
# scale) or MXFP4 (e8m0 scales, group 32), told apart by the dtype of b_scales
FP4_ID = scalar_type_id(2, 1, True, 0, True, 0)
E2M1_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def fp8_exponent_bias(dtype: torch.dtype) -> int:
    """The power of two Marlin's fp8 dequantizer leaves out (fp8 bits shifted into fp16/bf16 exponent fields)
    and vLLM folds into the scales (fp8_fused_exponent_bias_into_scales): 8 for fp16, 120 for bf16."""
    target = 5 if dtype == torch.float16 else 8
    return 2 ** (target - 1) - 2 ** (4 - 1)


_BY_ID = {v[0]: (k, *v[1:]) for k, v in MARLIN_TYPES.items()}


def _type(type_id: int) -> tuple[str, int, int, bool]:
    if int(type_id) not in _BY_ID:
        raise ValueError(f"Marlin b_type id {type_id} is not covered by this reference (covered: {sorted(MARLIN_TYPES)})")
    return _BY_ID[int(type_id)]


def e2m1_decode(codes: torch.Tensor) -> torch.Tensor:
    """4-bit float codes (sign, 2 exponent bits, 1 mantissa bit) -> their float32 values."""
    mag = torch.tensor(E2M1_VALUES, device=codes.device)[codes & 7]
    return torch.where(codes & 8 != 0, -mag, mag)


def _fp4_exponent_bias(dtype: torch.dtype) -> int:
    return 2 ** ((5 if dtype == torch.float16 else 8) - 1) - 2 ** (2 - 1)  # 14 (fp16), 126 (bf16)


def nvfp4_scales_encode(s: torch.Tensor) -> torch.Tensor:
    """nvfp4_marlin_process_scales: Marlin-permuted non-negative e4m3 scales -> the S0E5M3 bytes the kernel reads
    (exponent and mantissa of half(s * 2**7)), pairs of columns swapped inside every 4 ([0, 2, 1, 3])."""
    h = s.to(torch.float16).reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(s.shape)
    bits = (h * 2**7).view(torch.int16).to(torch.int64) & 0xFFFF
    return ((bits >> 7) & 0xFF).to(torch.uint8).view(torch.float8_e4m3fn)


def nvfp4_scales_decode(b: torch.Tensor) -> torch.Tensor:
    """Inverse of nvfp4_scales_encode (float32, still Marlin-permuted)."""
    bits = b.view(torch.uint8).to(torch.int64) << 7
    h = torch.where(bits >= 2**15, bits - 2**16, bits).to(torch.int16).view(torch.float16).float() / 2**7
    return h.reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(b.shape)


def fp8_act_codes(pre: torch.Tensor) -> torch.Tensor:
    """Preprocessed uint4b8 nibbles (marlin_int4_fp8_preprocess) -> the signed values q - 8 they encode: the
    kernel turns nibble sign<<3 | mag into the e4m3 subnormal +-(mag + sign) * 2**-9, hence scales x 512."""
    sign = (pre >> 3) & 1
    mag = pre & 7
    return torch.where(sign == 1, -(mag + 1), mag)
