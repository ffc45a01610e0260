"""vLLM 0.13.0 activation quantisation ops (csrc/quantization/w8a8/fp8/common.cu, int8/scaled_quant.cu).

Self-contained once embedded in a task record: it imports only torch and the shared helpers
(reference_impls/inline.py writes those in).
The Python wrappers `scaled_fp8_quant` / `scaled_int8_quant` (vllm/_custom_ops.py) pick one of these
registered ops; each is a task of its own. fp8 is OCP e4m3 (torch.float8_e4m3fn) with vLLM's clamp to
+-448 before a round-to-nearest-even conversion; int8 conversions are cvt.rni.sat (round half to even,
saturate). Every scale is fp32.
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype

FP8_MAX = 448.0  # quant_type_max_v<Float8_e4m3fn>; ROCm's e4m3fnuz (max 224 in vLLM) is out of scope
FP8_MIN_SCALE = 1.0 / (FP8_MAX * 512.0)  # min_scaling_factor<Float8_e4m3fn>


def _rows(x: torch.Tensor) -> torch.Tensor:
    """[..., d] as [tokens, d] fp32 (the kernels walk rows with the row stride, last dim contiguous)."""
    return x.reshape(-1, x.shape[-1]).float()


def _token_rows(t: torch.Tensor, tokens: int) -> torch.Tensor:
    """The [tokens, d] rows the fp8 kernels address: row i at i * t.stride(-2), last dim contiguous.

    The output may have more rows than the input (scaled_fp8_quant's num_token_padding): those stay unwritten.
    """
    d = t.shape[-1]
    return t.as_strided((tokens, d), (t.stride(-2) if t.dim() > 1 else d, 1), t.storage_offset())


def _to_fp8(q: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return q.clamp(-FP8_MAX, FP8_MAX).to(dtype)


def _rn_sat_int8(q: torch.Tensor) -> torch.Tensor:
    return torch.round(q).clamp(-128, 127).to(torch.int8)


def static_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor) -> None:
    """result = fp8(clamp(input * (1/scale), +-448)) with a given per-tensor fp32 scale."""
    inv = 1.0 / scale.reshape(-1)[0].float()
    x = _token_rows(input, input.numel() // input.shape[-1]).float()
    _token_rows(result, x.shape[0]).copy_(_to_fp8(x * inv, result.dtype))


def dynamic_scaled_fp8_quant(result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor) -> None:
    """scale[0] = max|input| / 448 over the whole tensor; result = fp8(clamp(input * (1/scale))).

    No lower bound on the scale here (unlike the per-token op): an all-zero input gives scale 0.
    """
    x = _token_rows(input, input.numel() // input.shape[-1]).float()
    s = x.abs().amax() / FP8_MAX
    scale.view(-1)[0] = s
    _token_rows(result, x.shape[0]).copy_(_to_fp8(x * (1.0 / s), result.dtype))


def dynamic_per_token_scaled_fp8_quant(
    result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor, scale_ub: torch.Tensor | None
) -> None:
    """scale[t] = max(min(max|x_t|, scale_ub) / 448, 1/(448*512)); result = fp8(clamp(x / scale[t]))."""
    x = _token_rows(input, input.numel() // input.shape[-1]).float()
    amax = x.abs().amax(dim=-1, keepdim=True)
    if scale_ub is not None:
        amax = torch.minimum(amax, scale_ub.reshape(()).float())
    s = torch.clamp_min(amax / FP8_MAX, FP8_MIN_SCALE)
    scale.view(-1)[: x.shape[0]] = s.reshape(-1)  # padded scale rows stay unwritten
    _token_rows(result, x.shape[0]).copy_(_to_fp8(x / s, result.dtype))


def static_scaled_int8_quant(
    result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor, azp: torch.Tensor | None
) -> None:
    """Symmetric: rn_sat8(x / scale). With azp: sat8(rn_sat32(x * (1/scale)) + azp), azp an int32 scalar."""
    x = _rows(input)
    s = scale.reshape(-1)[0].float()
    if azp is None:
        q = _rn_sat_int8(x / s)
    else:
        # int64 keeps the +azp exact where the int32 kernel's sum would wrap (only for |x/s| near 2**31).
        q32 = torch.round(x * (1.0 / s)).clamp(-(2.0**31), 2.0**31).to(torch.int64).clamp(-(2**31), 2**31 - 1)
        q = (q32 + azp.reshape(-1)[0].to(torch.int64)).clamp(-128, 127).to(torch.int8)
    result.copy_(q.reshape(result.shape))


def dynamic_scaled_int8_quant(
    result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor, azp: torch.Tensor | None
) -> None:
    """Per token. Symmetric: scale = absmax/127, q = rn_sat8(x * (127/absmax)) (0 for an all-zero row).

    Asymmetric (azp given): scale = (max - min)/255, azp = rint(-128 - min/scale) (half to even),
    q = sat8(rn(x * (1/scale)) + azp).
    """
    x = _rows(input)
    if azp is None:
        amax = x.abs().amax(dim=-1, keepdim=True)
        scale.copy_((amax / 127.0).reshape(scale.shape))
        inv = torch.where(amax == 0, torch.zeros_like(amax), 127.0 / amax)
        result.copy_(_rn_sat_int8(x * inv).reshape(result.shape))
        return
    mx = x.amax(dim=-1, keepdim=True)
    mn = x.amin(dim=-1, keepdim=True)
    s = (mx - mn) / 255.0
    zp = torch.round(-128.0 - mn / s).to(torch.int32)
    scale.copy_(s.reshape(scale.shape))
    azp.copy_(zp.reshape(azp.shape))
    q32 = torch.round(x * (1.0 / s)).clamp(-(2.0**31), 2.0**31).to(torch.int64).clamp(-(2**31), 2**31 - 1)
    result.copy_((q32 + zp.to(torch.int64)).clamp(-128, 127).to(torch.int8).reshape(result.shape))


# ----------------------------------------------------------------------------------------------- inputs
# The fp8 generators also take num_token_padding (output and per-token scale get that many rows, as the
# wrapper's option; the extra rows must stay unwritten) and strided_input (a row-strided input view).


def _input(params: dict, g: torch.Generator, *, mul: float = 1.0, sub: float = 0.0, eps: float = 0.0):
    t, h = int(params.get("num_tokens", 7)), int(params.get("hidden_size", 1024))
    dtype = _dtype(params.get("dtype", "bfloat16"))
    # torch.rand like the vLLM tests (uniform [0, 1) scaled); signs come from `sub`.
    return (torch.rand(t, h, generator=g) * mul - sub + eps).to(dtype), t, h


def _fp8_out(t: int, h: int, device: str, params: dict | None = None) -> torch.Tensor:
    """Poisoned fp8 output with max(num_token_padding, t) rows (rows past t are never written)."""
    rows = max(int((params or {}).get("num_token_padding") or 0), t)
    return torch.full((rows, h), float("nan"), dtype=torch.float32).to(torch.float8_e4m3fn).to(device)


def _maybe_strided(x: torch.Tensor, params: dict, device: str) -> torch.Tensor:
    """x, or (strided_input) the same values as a row-strided view of a twice-as-wide buffer."""
    if not bool(params.get("strided_input", False)):
        return x.to(device)
    wide = torch.zeros(x.shape[0], 2 * x.shape[1], dtype=x.dtype)
    wide[:, : x.shape[1]] = x
    return wide.to(device)[:, : x.shape[1]]


def _int8_out(t: int, h: int, device: str) -> torch.Tensor:
    return torch.full((t, h), -7, dtype=torch.int8, device=device)


def make_static_scaled_fp8_quant_inputs(params: dict, *, seed: int, device: str) -> dict:
    """static_scaled_fp8_quant args: x ~ N(0,1) (an RMSNorm output, as test_fused_rms_norm_quant feeds it);
    scale = `scale` when given (the test's quant_scale 0.01 / 1 / 10: saturating ... subnormal), else the
    calibrated absmax/448 times `scale_mult` (default 1)."""
    g = torch.Generator().manual_seed(int(seed))
    t, h = int(params.get("num_tokens", 7)), int(params.get("hidden_size", 1024))
    x = torch.randn(t, h, generator=g).to(_dtype(params.get("dtype", "bfloat16")))
    if params.get("scale") is not None:
        s = torch.tensor(float(params["scale"]), dtype=torch.float32)
    else:
        s = x.float().abs().amax() / FP8_MAX * float(params.get("scale_mult", 1.0))
    return {"result": _fp8_out(t, h, device, params), "input": _maybe_strided(x, params, device),
            "scale": s.reshape(1).to(torch.float32).to(device)}


def make_dynamic_scaled_fp8_quant_inputs(params: dict, *, seed: int, device: str) -> dict:
    """dynamic_scaled_fp8_quant args: x ~ U[0, 1) as test_dynamic_per_tensor_fp8_quant; scale fp32 [1]."""
    g = torch.Generator().manual_seed(int(seed))
    x, t, h = _input(params, g)
    return {"result": _fp8_out(t, h, device, params), "input": _maybe_strided(x, params, device),
            "scale": torch.full((1,), float("nan"), dtype=torch.float32, device=device)}


def make_dynamic_per_token_scaled_fp8_quant_inputs(params: dict, *, seed: int, device: str) -> dict:
    """dynamic_per_token_scaled_fp8_quant args: x ~ U[0,1)+1e-6; scale_ub = mean(x) when `scale_ub` is true."""
    g = torch.Generator().manual_seed(int(seed))
    x, t, h = _input(params, g, eps=1e-6)
    ub = x.float().mean().reshape(()).to(device) if bool(params.get("scale_ub", False)) else None
    out = _fp8_out(t, h, device, params)
    return {"result": out, "input": _maybe_strided(x, params, device),
            "scale": torch.full((out.shape[0], 1), float("nan"), dtype=torch.float32, device=device), "scale_ub": ub}


def make_static_scaled_int8_quant_inputs(params: dict, *, seed: int, device: str) -> dict:
    """static_scaled_int8_quant args: x ~ U[0,1)*1000 (minus 300 with azp), scale from the test's SCALE list,
    azp (int32 [1]) when `azp` is an int."""
    g = torch.Generator().manual_seed(int(seed))
    azp = params.get("azp")
    x, t, h = _input(params, g, mul=1000.0, sub=0.0 if azp is None else 300.0)
    return {"result": _int8_out(t, h, device), "input": x.to(device),
            "scale": torch.tensor([float(params.get("scale", 2.1))], dtype=torch.float32, device=device),
            "azp": None if azp is None else torch.tensor([int(azp)], dtype=torch.int32, device=device)}


def make_dynamic_scaled_int8_quant_inputs(params: dict, *, seed: int, device: str) -> dict:
    """dynamic_scaled_int8_quant args: x ~ U[0,1)*1000 (symmetric) or *1000-300 (asymmetric: azp int32 [T, 1])."""
    g = torch.Generator().manual_seed(int(seed))
    symmetric = bool(params.get("symmetric", True))
    x, t, h = _input(params, g, mul=1000.0, sub=0.0 if symmetric else 300.0)
    return {"result": _int8_out(t, h, device), "input": x.to(device),
            "scale": torch.full((t, 1), float("nan"), dtype=torch.float32, device=device),
            "azp": None if symmetric else torch.full((t, 1), -99999, dtype=torch.int32, device=device)}


# ------------------------------------------------------------------------ later vLLM schemas (0.33.0 on)


def _group_grid(scale: torch.Tensor, m: int, n: int, group_shape) -> torch.Tensor:
    """The [m, n] scale of every element: one scale per (group_m x group_n) tile, as static_scaled_fp8_quant
    reads a 0-d / one-element, 1-d (with group_shape) or 2-d scale from 0.33.0 (-1 in group_shape: whole dim)."""
    if scale.numel() == 1:
        return scale.reshape(1, 1).float().expand(m, n)
    gs = None
    if group_shape is not None:
        gs = [m if group_shape[0] == -1 else int(group_shape[0]), n if group_shape[1] == -1 else int(group_shape[1])]
    if scale.dim() == 1:
        if gs is None:
            raise ValueError("a 1-D scale needs group_shape")
        grid = scale.float().reshape(m // gs[0], n // gs[1])
    elif scale.dim() == 2:
        grid = scale.float()
        if gs is not None and (m // grid.shape[0], n // grid.shape[1]) != tuple(gs):
            raise ValueError("group_shape does not match the 2-D scale")
    else:
        raise ValueError("scale must be 0-D, 1-D or 2-D")
    return grid.repeat_interleave(m // grid.shape[0], 0).repeat_interleave(n // grid.shape[1], 1)


def static_scaled_fp8_quant_v033(result: torch.Tensor, input: torch.Tensor, scale: torch.Tensor,
                                 group_shape: list[int] | None = None) -> None:
    """result = fp8(clamp(input * (1/scale), +-448)), the scale per tensor (0.13.0's case), per token, per
    channel or per 2-D group: the static_scaled_fp8_quant of vLLM 0.33.0 on."""
    d = input.shape[-1]
    x = _token_rows(input, input.numel() // d).float()
    inv = 1.0 / _group_grid(scale.to(x.device), x.shape[0], d, group_shape)
    _token_rows(result, x.shape[0]).copy_(_to_fp8(x * inv, result.dtype))


def make_static_scaled_fp8_quant_inputs_v033(params: dict, *, seed: int, device: str) -> dict:
    """make_static_scaled_fp8_quant_inputs; with `group_shape` [gm, gn] a positive scale per group instead
    (1-D when one of the group counts is 1, else 2-D), absmax/448 of each group times `scale_mult`."""
    x = make_static_scaled_fp8_quant_inputs(params, seed=seed, device=device)
    gs = params.get("group_shape")
    if gs is None:
        return {**x, "group_shape": None}
    inp = x["input"]
    m, n = inp.shape[0], inp.shape[-1]
    gm, gn = (m if gs[0] == -1 else int(gs[0])), (n if gs[1] == -1 else int(gs[1]))
    tiles = inp.float().contiguous().reshape(m // gm, gm, n // gn, gn).abs().amax(dim=(1, 3))
    s = (tiles / FP8_MAX * float(params.get("scale_mult", 1.0))).clamp_min(1e-6).to(torch.float32)
    if 1 in s.shape:
        s = s.reshape(-1)
    return {**x, "scale": s.contiguous().to(device), "group_shape": [int(gs[0]), int(gs[1])]}
