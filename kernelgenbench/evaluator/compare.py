"""Pure comparison of a candidate's outputs with the reference's, by the task's semantics.

Every function takes tensors that already sit in the evaluator's process (CPU copies) and returns a
`Verdict`; none mutates its inputs. The first failing check wins and its message is the evidence.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

import torch
import yaml

from kernelgenbench.dataset.record import Tolerance
from kernelgenbench.evaluator.status import PASS, Status, Verdict

# Fixed false-failure rate of the distribution test for random ops: a correct sampler fails one
# comparison in ten thousand.
RANDOM_ALPHA = 1e-4
# Below this many elements a two-sample test has no power; random outputs are then judged by metadata.
RANDOM_MIN_ELEMENTS = 64


@functools.cache
def default_tolerances() -> dict[str, Tolerance]:
    """The per-dtype tolerance used when a record names none for a dtype (kernelgenbench/data)."""
    text = (resources.files("kernelgenbench.data") / "eval_default_tolerance.yaml").read_text()
    return {k: Tolerance(**v) for k, v in yaml.safe_load(text).items()}


def dtype_name(dtype: torch.dtype) -> str:
    """'float32' for torch.float32."""
    return str(dtype).removeprefix("torch.")


def tolerance_for(dtype: torch.dtype, tolerance: Mapping[str, Tolerance]) -> Tolerance:
    """The record's tolerance for this dtype, else the default table's, else float32's."""
    name = dtype_name(dtype)
    if name in tolerance:
        return tolerance[name]
    table = default_tolerances()
    return table.get(name, table["float32"])


def _exact_kind(dtype: torch.dtype) -> bool:
    return not (dtype.is_floating_point or dtype.is_complex)


def type_label(cls: type) -> str:
    """'module.qualname' of a class, read through `type`'s own descriptors; a class that borrows a name it is
    not (a torch.Tensor subclass calling itself torch.Tensor) is said to."""
    mod, qual = type.__dict__["__module__"].__get__(cls), type.__dict__["__qualname__"].__get__(cls)
    name = f"{mod if type(mod) is str else '?'}.{qual if type(qual) is str else '?'}"
    return name + (" (another type under that name)" if name == "torch.Tensor" and cls is not torch.Tensor else "")


def _plain(where: str, ref: torch.Tensor, out: Any) -> Verdict:
    """`out` is a plain tensor of the reference's layout, with data (not on the meta device); the reference too."""
    if type(out) is not torch.Tensor:
        return Verdict(Status.INCORRECT_TYPE, f"{where}: expected a plain torch.Tensor, got {type_label(type(out))}")
    if not isinstance(ref, torch.Tensor) or ref.layout != torch.strided or ref.is_nested or ref.is_meta:
        return Verdict(Status.REFERENCE_ERROR, f"{where}: the reference output is not a plain strided tensor with "
                       f"data ({ref.layout}, on {ref.device}): it cannot be compared")
    if out.layout != ref.layout or out.is_nested:
        return Verdict(Status.INCORRECT_TYPE, f"{where}: layout {out.layout}{' (nested)' if out.is_nested else ''}, "
                       f"expected {ref.layout}")
    if out.is_meta:
        return Verdict(Status.INCORRECT_DEVICE, f"{where}: on the meta device (a tensor without data), expected {ref.device.type}")
    return PASS


def _on_ref_device(ref: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """`out` where `ref` is: the worker's device check already passed, so a difference here is the transport's."""
    return out if out.device == ref.device else out.to(ref.device)


def check_metadata(where: str, ref: torch.Tensor, out: Any, *, strides: bool) -> Verdict:
    """Type, layout, data, dtype, shape and (when asked) strides of one output."""
    plain = _plain(where, ref, out)
    if not plain.passed:
        return plain
    if out.dtype != ref.dtype:
        return Verdict(Status.INCORRECT_DTYPE, f"{where}: dtype {dtype_name(out.dtype)}, expected {dtype_name(ref.dtype)}")
    if tuple(out.shape) != tuple(ref.shape):
        return Verdict(Status.INCORRECT_SHAPE, f"{where}: shape {list(out.shape)}, expected {list(ref.shape)}")
    if strides and out.numel() > 1 and tuple(out.stride()) != tuple(ref.stride()):
        return Verdict(Status.INCORRECT_STRIDES, f"{where}: strides {list(out.stride())}, expected {list(ref.stride())}")
    return PASS


def _as_wide(t: torch.Tensor) -> torch.Tensor:
    if t.dtype.is_complex:
        return t.detach().to(torch.complex128)
    return t.detach().to(torch.float64)


def _index(flat_i: int, shape: Sequence[int]) -> list[int]:
    idx = []
    for s in reversed(list(shape)):
        idx.append(flat_i % s if s else 0)
        flat_i //= s if s else 1
    return idx[::-1]


def compare_values(where: str, ref: torch.Tensor, out: torch.Tensor, tol: Tolerance) -> tuple[Verdict, dict[str, float]]:
    """Elementwise comparison of same-shape, same-dtype tensors; returns the verdict and error figures.

    Never raises: other tensors get a metadata verdict, `out` on another device is moved to `ref`'s, and a
    comparison torch cannot make (an exotic dtype) is an evaluator_error with torch's message.
    """
    stats: dict[str, float] = {"max_abs_err": 0.0, "max_rel_err": 0.0}
    meta = check_metadata(where, ref, out, strides=False)
    if not meta.passed:
        return meta, stats
    try:
        return _compare_values(where, ref, _on_ref_device(ref, out), tol, stats)
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as exc:
        return Verdict(Status.EVALUATOR_ERROR, f"{where}: the values could not be compared ({dtype_name(ref.dtype)} "
                       f"on {ref.device}): {type(exc).__name__}: {exc}"[:1000]), stats


def _compare_values(where: str, ref: torch.Tensor, out: torch.Tensor, tol: Tolerance,
                    stats: dict[str, float]) -> tuple[Verdict, dict[str, float]]:
    if ref.numel() == 0:
        return PASS, stats
    if _exact_kind(ref.dtype):
        diff = out != ref
        n = int(diff.sum())
        if n:
            i = int(diff.reshape(-1).nonzero()[0])
            return Verdict(Status.INCORRECT_NUMERICS,
                           f"{where}: {n} of {ref.numel()} elements differ (exact comparison for {dtype_name(ref.dtype)}); "
                           f"first at {_index(i, ref.shape)}: got {out.reshape(-1)[i].item()}, expected {ref.reshape(-1)[i].item()}"), stats
        return PASS, stats
    r, o = _as_wide(ref).reshape(-1), _as_wide(out).reshape(-1)
    r_nan, o_nan = torch.isnan(r), torch.isnan(o)
    bad_nan = o_nan & ~r_nan
    if bad_nan.any():
        i = int(bad_nan.nonzero()[0])
        return Verdict(Status.INCORRECT_NUMERICS,
                       f"{where}: {int(bad_nan.sum())} NaN where the reference has none; first at {_index(i, ref.shape)} "
                       f"(expected {r[i].item()})"), stats
    r_inf, o_inf = torch.isinf(r), torch.isinf(o)
    bad_inf = (o_inf & ~r_inf) | (r_inf & (o != r))
    if bad_inf.any():
        i = int(bad_inf.nonzero()[0])
        return Verdict(Status.INCORRECT_NUMERICS,
                       f"{where}: infinity mismatch at {_index(i, ref.shape)}: got {o[i].item()}, expected {r[i].item()}"), stats
    if bool((r != 0).any()) and not bool((o != 0).any()):
        return Verdict(Status.INCORRECT_NUMERICS, f"{where}: all-zero output against a non-zero reference"), stats
    finite = ~(r_nan | r_inf)
    missing = r_nan & ~o_nan
    err = (o - r).abs()
    err = torch.where(finite, err, torch.zeros_like(err))
    allowed = tol.atol + tol.rtol * r.abs()
    outside = (err > torch.where(finite, allowed, torch.zeros_like(allowed))) | missing
    stats["max_abs_err"] = float(err.max())
    rel = err / r.abs().clamp_min(1e-30)
    stats["max_rel_err"] = float(torch.where(finite & (r != 0), rel, torch.zeros_like(rel)).max())
    n_out = int(outside.sum())
    if n_out > tol.max_mismatch * ref.numel():
        i = int(outside.nonzero()[0])
        return Verdict(Status.INCORRECT_NUMERICS,
                       f"{where}: {n_out} of {ref.numel()} elements outside atol={tol.atol:g} rtol={tol.rtol:g}; "
                       f"max abs err {stats['max_abs_err']:.3g}; first at {_index(i, ref.shape)}: "
                       f"got {o[i].item():.6g}, expected {r[i].item():.6g}"), stats
    return PASS, stats


def ks_pvalue(a: torch.Tensor, b: torch.Tensor) -> float:
    """Two-sample Kolmogorov-Smirnov p-value (asymptotic, Numerical Recipes' small-sample correction)."""
    x = torch.sort(a.reshape(-1).double()).values
    y = torch.sort(b.reshape(-1).double()).values
    n, m = x.numel(), y.numel()
    grid = torch.cat([x, y])
    cdf_x = torch.searchsorted(x, grid, right=True).double() / n
    cdf_y = torch.searchsorted(y, grid, right=True).double() / m
    d = float((cdf_x - cdf_y).abs().max())
    en = math.sqrt(n * m / (n + m))
    lam = (en + 0.12 + 0.11 / en) * d
    if lam < 1e-3:
        return 1.0
    total = sum(2 * (-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return min(1.0, max(0.0, total))


def compare_random(where: str, ref: torch.Tensor, out: torch.Tensor, *, alpha: float = RANDOM_ALPHA) -> Verdict:
    """A random op's output against an independent reference draw: metadata, finiteness, distribution."""
    meta = check_metadata(where, ref, out, strides=False)
    if not meta.passed:
        return meta
    if ref.numel() < RANDOM_MIN_ELEMENTS:
        return PASS
    r, o = ref.reshape(-1), _on_ref_device(ref, out).reshape(-1)
    if r.dtype.is_complex:
        r, o = torch.view_as_real(r), torch.view_as_real(o)
    r, o = r.double(), o.double()
    if bool(torch.isfinite(r).all()) and not bool(torch.isfinite(o).all()):
        return Verdict(Status.INCORRECT_NUMERICS, f"{where}: non-finite values in a random output whose reference is finite")
    p = ks_pvalue(r[torch.isfinite(r)], o[torch.isfinite(o)])
    if p < alpha:
        return Verdict(Status.INCORRECT_NUMERICS,
                       f"{where}: distribution differs from the reference draw (two-sample KS p={p:.2e} < {alpha:g}; "
                       f"mean {float(o.mean()):.4g} vs {float(r.mean()):.4g}, std {float(o.std()):.4g} vs {float(r.std()):.4g})")
    return PASS


def compare_output(where: str, ref: Any, out: Any, *, semantics: str,
                   tolerance: Mapping[str, Tolerance]) -> tuple[Verdict, dict[str, float]]:
    """One output (tensor or scalar) by the task's semantics: deterministic, random, uninitialized or view."""
    if not isinstance(ref, torch.Tensor):
        if ref is None:
            return PASS, {}
        if type(out) is not type(ref):
            return Verdict(Status.INCORRECT_TYPE, f"{where}: expected {type(ref).__name__}, got {type_label(type(out))}"), {}
        if isinstance(ref, float) and math.isclose(ref, out, rel_tol=1e-5, abs_tol=1e-6) or ref == out:
            return PASS, {}
        if isinstance(ref, float) and math.isnan(ref) and math.isnan(out):
            return PASS, {}
        return Verdict(Status.INCORRECT_NUMERICS, f"{where}: got {out!r}, expected {ref!r}"), {}
    meta = check_metadata(where, ref, out, strides=semantics in ("view", "uninitialized"))
    if not meta.passed or semantics == "uninitialized":
        return meta, {}
    if semantics == "random":
        return compare_random(where, ref, out), {}
    return compare_values(where, ref, out, tolerance_for(ref.dtype, tolerance))


def flatten(value: Any, prefix: str) -> list[tuple[str, Any]]:
    """Leaves of a nested tuple/list of outputs with a path each ('return[0]', 'return[1][2]')."""
    if isinstance(value, (list, tuple)):
        leaves: list[tuple[str, Any]] = []
        for i, v in enumerate(value):
            leaves.extend(flatten(v, f"{prefix}[{i}]"))
        return leaves
    return [(prefix, value)]


def unchanged(where: str, before: Any, after: Any) -> Verdict:
    """An input the schema does not declare mutable must come back bit-identical."""
    if not isinstance(before, torch.Tensor):
        return PASS
    if (type(after) is not torch.Tensor or after.shape != before.shape or after.dtype != before.dtype
            or after.layout != before.layout or after.is_meta != before.is_meta):
        return Verdict(Status.UNDECLARED_MUTATION, f"{where}: the input's metadata changed during the call")
    if before.layout != torch.strided or before.is_meta:
        return PASS  # an input the comparison cannot read (never drawn by the evaluator): metadata only
    after = _on_ref_device(before, after)
    differ = before != after
    if before.dtype.is_floating_point or before.dtype.is_complex:
        differ &= ~(torch.isnan(before) & torch.isnan(after))
    n = int(differ.sum())
    if n:
        return Verdict(Status.UNDECLARED_MUTATION,
                       f"{where}: {n} of {before.numel()} elements written, but the schema does not declare it mutable")
    return PASS
