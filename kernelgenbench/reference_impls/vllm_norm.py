"""vLLM 0.13.0 RMSNorm ops (csrc/layernorm_kernels.cu, csrc/quantization/fused_kernels/): references, inputs.

Self-contained once embedded in a task record: it imports only torch and the shared helpers
(reference_impls/inline.py writes those in).
Rounding follows the CUDA kernels: the sum of squares and the normalisation run in fp32, the normalised
value is rounded to the input dtype before it is multiplied by the weight in that dtype.
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype

FP8_MAX = 448.0  # vLLM quant_type_max_v<c10::Float8_e4m3fn>; ROCm's e4m3fnuz (224) is out of scope
FP8_MIN_SCALE = 1.0 / (FP8_MAX * 512.0)  # min_scaling_factor<Float8_e4m3fn>
INT8_MIN_SCALE = 2.0**-23  # min_scaling_factor<int8_t>: FLT_EPSILON


def _inv_rms(x32: torch.Tensor, epsilon: float) -> torch.Tensor:
    """rsqrt(mean(x^2) + eps) per row, in fp32 as the kernels compute it."""
    ss = (x32 * x32).sum(dim=-1, keepdim=True)
    return torch.rsqrt(ss / x32.shape[-1] + torch.tensor(epsilon, dtype=torch.float32))


def _normed(x32: torch.Tensor, weight: torch.Tensor, epsilon: float, dtype: torch.dtype) -> torch.Tensor:
    """(scalar_t)(x * inv_rms) * weight, the product taken in the input dtype."""
    return (x32 * _inv_rms(x32, epsilon)).to(dtype) * weight


def rms_norm(result: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    """result = RMSNorm(input) * weight over the last dim; input may have a row stride."""
    out = _normed(input.float(), weight, epsilon, input.dtype)
    result.copy_(out.reshape(result.shape))


def fused_add_rms_norm(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    """residual = input + residual (rounded to dtype); input = RMSNorm(residual) * weight, both in place."""
    z = input + residual  # rounded to the dtype, as the kernel stores it before normalising
    residual.copy_(z)
    input.copy_(_normed(z.float(), weight, epsilon, input.dtype))


def _quantize(y32: torch.Tensor, scale: torch.Tensor, out_dtype: torch.dtype, inverted: bool) -> torch.Tensor:
    """vLLM ScaledQuant: fp8 = clamp(y/s, +-448) rounded to nearest even; int8 = cvt.rni.sat (half to even)."""
    if out_dtype == torch.int8:
        q = y32 * (1.0 / scale) if inverted else y32 / scale
        return torch.round(q).clamp(-128, 127).to(torch.int8)
    q = y32 * (1.0 / scale) if inverted else y32 / scale
    return q.clamp(-FP8_MAX, FP8_MAX).to(out_dtype)


def _qmax_minscale(out_dtype: torch.dtype) -> tuple[float, float]:
    if out_dtype == torch.int8:
        return 127.0, INT8_MIN_SCALE
    return FP8_MAX, FP8_MIN_SCALE


def _fused_prologue(input, weight, epsilon, residual):
    """x = input + residual in fp32 (residual written back rounded), y = normed x, as the fused kernels do."""
    hidden = input.shape[-1]
    x32 = input.reshape(-1, hidden).float()
    if residual is not None:
        x32 = x32 + residual.reshape(-1, hidden).float()
        residual.copy_(x32.to(residual.dtype).reshape(residual.shape))
    y = (x32 * _inv_rms(x32, epsilon)).to(input.dtype) * weight
    return y.float()


def _scale_from_absmax(amax: torch.Tensor, scale_ub: torch.Tensor | None, out_dtype: torch.dtype) -> torch.Tensor:
    qmax, min_scale = _qmax_minscale(out_dtype)
    if scale_ub is not None:
        amax = torch.minimum(amax, scale_ub.reshape(()).float())
    return torch.clamp_min(amax / qmax, min_scale)


def rms_norm_dynamic_per_token_quant(
    result: torch.Tensor,
    input: torch.Tensor,
    weight: torch.Tensor,
    scale: torch.Tensor,
    epsilon: float,
    scale_ub: torch.Tensor | None,
    residual: torch.Tensor | None,
) -> None:
    """(residual +=) RMSNorm then per-token dynamic quantisation to fp8 e4m3 or int8; scale[t] = absmax/qmax."""
    y = _fused_prologue(input, weight, epsilon, residual)
    s = _scale_from_absmax(y.abs().amax(dim=-1, keepdim=True), scale_ub, result.dtype)
    scale.copy_(s.reshape(scale.shape))
    # int8 multiplies by the inverted scale, fp8 divides ("exact match with FBGemm").
    q = _quantize(y, s, result.dtype, inverted=result.dtype == torch.int8)
    result.copy_(q.reshape(result.shape))


def rms_norm_per_block_quant(
    result: torch.Tensor,
    input: torch.Tensor,
    weight: torch.Tensor,
    scale: torch.Tensor,
    epsilon: float,
    scale_ub: torch.Tensor | None,
    residual: torch.Tensor | None,
    group_size: int,
    is_scale_transposed: bool,
) -> None:
    """(residual +=) RMSNorm then quantisation per group of `group_size` columns; one scale per token and group.

    The kernel addresses `scale` by raw memory: [tokens, groups] row-major, or [groups, tokens] when
    is_scale_transposed (the Python wrapper passes a transposed view then).
    """
    y = _fused_prologue(input, weight, epsilon, residual)
    tokens, hidden = y.shape
    groups = hidden // group_size
    yg = y.reshape(tokens, groups, group_size)
    s = _scale_from_absmax(yg.abs().amax(dim=-1), scale_ub, result.dtype)  # [tokens, groups]
    strides = (1, tokens) if is_scale_transposed else (groups, 1)
    scale.as_strided((tokens, groups), strides, scale.storage_offset()).copy_(s)
    q = _quantize(yg, s.unsqueeze(-1), result.dtype, inverted=result.dtype == torch.int8)
    result.copy_(q.reshape(result.shape))


# ----------------------------------------------------------------------------------------------- inputs


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(int(seed))


def _weight(hidden: int, dtype: torch.dtype, g: torch.Generator) -> torch.Tensor:
    return (torch.randn(hidden, generator=g) * 0.1 + 1.0).to(dtype)  # normal(1, 0.1) as the vLLM tests


def make_rms_norm_inputs(params: dict, *, seed: int, device: str) -> dict:
    """rms_norm args: x ~ N(0,1)/(2H) like test_layernorm, optionally a row-strided view (strided_input)."""
    g = _gen(seed)
    t, h = int(params.get("num_tokens", 7)), int(params.get("hidden_size", 768))
    dtype = _dtype(params.get("dtype", "float16"))
    strided = bool(params.get("strided_input", False))
    base = (torch.randn(t, 2 * h if strided else h, generator=g) / (2 * h)).to(dtype).to(device)
    x = base[..., :h]
    result = torch.full((t, h), float("nan"), dtype=dtype, device=device)  # poisoned: every element is written
    return {"result": result, "input": x, "weight": _weight(h, dtype, g).to(device),
            "epsilon": float(params.get("epsilon", 1e-6))}


def make_fused_add_rms_norm_inputs(params: dict, *, seed: int, device: str) -> dict:
    """fused_add_rms_norm args: input (maybe row-strided) and a contiguous residual, both ~ N(0,1)/(2H)."""
    g = _gen(seed)
    t, h = int(params.get("num_tokens", 7)), int(params.get("hidden_size", 768))
    dtype = _dtype(params.get("dtype", "float16"))
    strided = bool(params.get("strided_input", False))
    base = (torch.randn(t, 2 * h if strided else h, generator=g) / (2 * h)).to(dtype).to(device)
    residual = (torch.randn(t, h, generator=g) / (2 * h)).to(dtype).to(device)
    return {"input": base[..., :h], "residual": residual, "weight": _weight(h, dtype, g).to(device),
            "epsilon": float(params.get("epsilon", 1e-6))}


def _fused_quant_common(params: dict, g: torch.Generator, device: str, hidden: int):
    t = int(params.get("num_tokens", 7))
    dtype = _dtype(params.get("dtype", "bfloat16"))
    qdtype = _dtype(params.get("quant_dtype", "float8_e4m3fn"))
    x = torch.randn(t, hidden, generator=g) / hidden  # scale 1/H as test_fused_quant_layernorm
    weight = _weight(hidden, dtype, g)
    residual = None
    if bool(params.get("add_residual", False)):
        residual = (torch.randn(t, hidden, generator=g) / hidden).to(dtype).to(device)
    x = x.to(dtype)
    scale_ub = None
    # The kernel accepts scale_ub only for fp8 outputs (TORCH_CHECK); the test skips int8 + scale_ub.
    if bool(params.get("has_scale_ub", False)) and qdtype != torch.int8:
        eps = float(params.get("epsilon", 1e-6))
        xr = x.float() + (residual.float().cpu() if residual is not None else 0.0)
        normed = (xr * _inv_rms(xr, eps)).to(dtype) * weight
        scale_ub = normed.float().mean().reshape(()).to(device)  # as the test: mean of the normed input
    return t, dtype, qdtype, x.to(device), weight.to(device), residual, scale_ub


def make_rms_norm_dynamic_per_token_quant_inputs(params: dict, *, seed: int, device: str) -> dict:
    """rms_norm_dynamic_per_token_quant args; quant_dtype int8 or float8_e4m3fn; scale [T, 1] fp32."""
    g = _gen(seed)
    h = max(1, int(params.get("hidden_size", 1024)))
    t, dtype, qdtype, x, w, residual, scale_ub = _fused_quant_common(params, g, device, h)
    poison = -7 if qdtype == torch.int8 else float("nan")
    return {
        "result": torch.full((t, h), poison, dtype=torch.float32).to(qdtype).to(device),
        "input": x, "weight": w,
        "scale": torch.full((t, 1), float("nan"), dtype=torch.float32, device=device),
        "epsilon": float(params.get("epsilon", 1e-6)), "scale_ub": scale_ub, "residual": residual,
    }


def make_rms_norm_per_block_quant_inputs(params: dict, *, seed: int, device: str) -> dict:
    """rms_norm_per_block_quant args. group_size is 64 or 128 (the test's [1, g]; None -> 128); hidden_size
    is rounded down to a multiple of it (at least one group), since the kernel requires that."""
    g = _gen(seed)
    gs = params.get("group_size", 128)
    if isinstance(gs, list | tuple):
        gs = gs[-1]
    gs = 128 if gs is None else int(gs)
    h = max(gs, int(params.get("hidden_size", 1024)) // gs * gs)
    t, dtype, qdtype, x, w, residual, scale_ub = _fused_quant_common(params, g, device, h)
    transposed = bool(params.get("is_scale_transposed", False))
    groups = h // gs
    if transposed:
        scale = torch.full((groups, t), float("nan"), dtype=torch.float32, device=device).t()
    else:
        scale = torch.full((t, groups), float("nan"), dtype=torch.float32, device=device)
    poison = -7 if qdtype == torch.int8 else float("nan")
    return {
        "result": torch.full((t, h), poison, dtype=torch.float32).to(qdtype).to(device),
        "input": x, "weight": w, "scale": scale,
        "epsilon": float(params.get("epsilon", 1e-6)), "scale_ub": scale_ub, "residual": residual,
        "group_size": gs, "is_scale_transposed": transposed,
    }


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)
# From 0.33.0 rms_norm and fused_add_rms_norm take `Tensor? weight` (None: no weight; rms_norm also takes
# one weight row per token, [num_tokens, hidden]), and the kernels multiply x * rsqrt * weight in fp32 and
# round once, where 0.13.0 rounded the normalised value before the weight product: the two agree within
# one rounding of the dtype.


def _normed_once(x32: torch.Tensor, weight: torch.Tensor | None, epsilon: float, dtype: torch.dtype) -> torch.Tensor:
    """(scalar_t)(x * inv_rms * w), all in fp32, one rounding (csrc/layernorm_kernels.cu from 0.33.0)."""
    y = x32 * _inv_rms(x32, epsilon)
    if weight is not None:
        y = y * weight.float()
    return y.to(dtype)


def rms_norm_v033(result: torch.Tensor, input: torch.Tensor, weight: torch.Tensor | None, epsilon: float) -> None:
    """result = RMSNorm(input) [* weight], one rounding; weight None, [hidden] or [num_tokens, hidden]."""
    w = weight
    if weight is not None and weight.dim() == 2:  # one row per index of the first dim (token or batch)
        w = weight.reshape(weight.shape[0], *([1] * (input.dim() - 2)), weight.shape[-1])
    result.copy_(_normed_once(input.float(), w, epsilon, input.dtype).reshape(result.shape))


def fused_add_rms_norm_v033(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor | None,
                            epsilon: float) -> None:
    """residual = input + residual (rounded to dtype); input = RMSNorm(residual) [* weight], one rounding."""
    z = input + residual
    residual.copy_(z)
    input.copy_(_normed_once(z.float(), weight, epsilon, input.dtype))


def _weight_kind(params: dict, x: dict, key: str, rows: int) -> dict:
    """Workload param `weight`: 'vector' (default), 'none', or 'per_row' (rms_norm: one row per token)."""
    kind = str(params.get("weight", "vector"))
    if kind == "none":
        x[key] = None
    elif kind == "per_row":
        w = x[key]
        g = _gen(int(params.get("weight_seed", 1)))
        x[key] = (torch.randn(rows, w.shape[-1], generator=g) * 0.1 + 1.0).to(w.dtype).to(w.device)
    elif kind != "vector":
        raise ValueError(f"weight must be vector, none or per_row, not {kind!r}")
    return x


def make_rms_norm_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_rms_norm_inputs, with the weight as the `weight` param says (vector, none, per_row)."""
    x = make_rms_norm_inputs(params, seed=seed, device=device)
    return _weight_kind(params, x, "weight", x["input"].shape[0])


def make_fused_add_rms_norm_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_fused_add_rms_norm_inputs, with the weight as the `weight` param says (vector or none)."""
    if str(params.get("weight", "vector")) == "per_row":
        raise ValueError("fused_add_rms_norm takes a [hidden] weight or none")
    x = make_fused_add_rms_norm_inputs(params, seed=seed, device=device)
    return _weight_kind(params, x, "weight", x["input"].shape[0])
