"""Pure comparison of a candidate's outputs with the reference's, by the task's semantics.

Every function takes tensors that already sit in the evaluator's process (CPU copies) and returns a
`Verdict`; none mutates its inputs. The first failing check wins and its message is the evidence.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from kernelgenbench.datafiles import load_data
from kernelgenbench.dataset.record import CompareRule, Task, Tolerance
from kernelgenbench.evaluator.randomness import not_independent
from kernelgenbench.evaluator.status import PASS, Status, Verdict

# Fixed false-failure rate of the distribution test for random ops: a correct sampler fails one
# comparison in ten thousand.
RANDOM_ALPHA = 1e-4
# Below this many elements a two-sample test has no power; random outputs are then judged by metadata.
RANDOM_MIN_ELEMENTS = 64


@functools.cache
def default_tolerances() -> dict[str, Tolerance]:
    """The per-dtype tolerance used when a record names none for a dtype (kernelgenbench/data)."""
    return {k: Tolerance(**v) for k, v in load_data("eval_default_tolerance.yaml", top=dict).items()}


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


def exact_for(dtype: torch.dtype, tolerance: Mapping[str, Tolerance]) -> bool:
    """Integer and bool outputs are compared exactly unless the record names a tolerance for their dtype."""
    return _exact_kind(dtype) and dtype_name(dtype) not in tolerance


def compare_values(where: str, ref: torch.Tensor, out: torch.Tensor, tol: Tolerance, *,
                   exact: bool | None = None) -> tuple[Verdict, dict[str, float]]:
    """Elementwise comparison of same-shape, same-dtype tensors; returns the verdict and error figures.

    `exact` (default: for integer and bool dtypes) compares bit for bit; otherwise `tol` applies, also to
    integers whose record names a tolerance (upstream tests compare quantized int8 with atol=1).
    Never raises: other tensors get a metadata verdict, `out` on another device is moved to `ref`'s, and a
    comparison torch cannot make (an exotic dtype) is an evaluator_error with torch's message.
    """
    stats: dict[str, float] = {"max_abs_err": 0.0, "max_rel_err": 0.0}
    meta = check_metadata(where, ref, out, strides=False)
    if not meta.passed:
        return meta, stats
    try:
        return _compare_values(where, ref, _on_ref_device(ref, out), tol, stats, exact)
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as exc:
        return Verdict(Status.EVALUATOR_ERROR, f"{where}: the values could not be compared ({dtype_name(ref.dtype)} "
                       f"on {ref.device}): {type(exc).__name__}: {exc}"[:1000]), stats


def _compare_values(where: str, ref: torch.Tensor, out: torch.Tensor, tol: Tolerance,
                    stats: dict[str, float], exact: bool | None) -> tuple[Verdict, dict[str, float]]:
    if ref.numel() == 0:
        return PASS, stats
    if _exact_kind(ref.dtype) if exact is None else exact:
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


def compare_random(where: str, ref: torch.Tensor, out: torch.Tensor, *, alpha: float = RANDOM_ALPHA,
                   inputs: Mapping[str, Any] | None = None) -> Verdict:
    """A random op's output against an independent reference draw: metadata, finiteness, distribution, and
    independence (of its other elements and of `inputs`, the call's arguments; evaluator/randomness.py)."""
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
    r, o = r[torch.isfinite(r)], o[torch.isfinite(o)]
    p = ks_pvalue(r, o)
    if p < alpha:
        return Verdict(Status.INCORRECT_NUMERICS,
                       f"{where}: distribution differs from the reference draw (two-sample KS p={p:.2e} < {alpha:g}; "
                       f"mean {float(o.mean()):.4g} vs {float(r.mean()):.4g}, std {float(o.std()):.4g} vs {float(r.std()):.4g})")
    # The right marginal is not enough: neighbouring elements of an independent draw are independent too.
    # A fixed pattern with the right share of each value (0,1,0,1,... for p = 0.5) has the marginal but not the
    # distribution of differences between neighbours, which the reference draw gives.
    if r.numel() > RANDOM_MIN_ELEMENTS and o.numel() > RANDOM_MIN_ELEMENTS:
        p = ks_pvalue(r[1:] - r[:-1], o[1:] - o[:-1])
        if p < alpha:
            return Verdict(Status.INCORRECT_NUMERICS,
                           f"{where}: neighbouring elements are not independent as in the reference draw (two-sample "
                           f"KS of successive differences p={p:.2e} < {alpha:g})")
    given = {k: v for k, v in (inputs or {}).items() if isinstance(v, torch.Tensor)}
    why = not_independent(where, ref, _on_ref_device(ref, out), given)
    return Verdict(Status.INCORRECT_NUMERICS, why) if why else PASS


def compare_output(where: str, ref: Any, out: Any, *, semantics: str, tolerance: Mapping[str, Tolerance],
                   inputs: Mapping[str, Any] | None = None) -> tuple[Verdict, dict[str, float]]:
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
        return compare_random(where, ref, out, inputs=inputs), {}
    return compare_values(where, ref, out, tolerance_for(ref.dtype, tolerance), exact=exact_for(ref.dtype, tolerance))


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


# --- Declared relaxations (the record's `compare` rules): where upstream leaves an order unspecified. ---


def _sorted_pair(ref: torch.Tensor, out: torch.Tensor, keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Both tensors (flat) ordered by (key, value): equal keys hold equal multisets iff the results match."""
    def order(v: torch.Tensor) -> torch.Tensor:
        # Stable sort by value, then stable sort by key: a lexicographic sort without lexsort.
        by_value = torch.sort(v, stable=True).indices
        return by_value[torch.sort(keys[by_value], stable=True).indices]
    perm_ref = order(ref)
    return ref[perm_ref], out[order(out)], perm_ref


def segment_keys(shape: Sequence[int], labels: torch.Tensor, repeat: int, limit: torch.Tensor | None) -> torch.Tensor:
    """Per element of a target, the key of its segment; elements past `limit` get a key of their own.

    The target is cut into rows: one per element of `limit` (else its leading dims), each row of `labels`
    reshaped to as many rows. Element j of row r has label labels[r, j // repeat]; a run of equal
    consecutive labels is one segment.
    """
    numel = math.prod(shape)
    rows = limit.numel() if limit is not None else (math.prod(shape[:-1]) if len(shape) > 1 else 1)
    if not numel or not rows or numel % rows or labels.numel() % rows or not labels.numel():
        # Outputs that do not fit the declaration get no freedom: every element is its own segment.
        return torch.arange(numel, device=labels.device)
    n = numel // rows
    lab = labels.reshape(rows, -1)
    pos = torch.arange(n, device=labels.device)
    col = (pos // max(int(repeat), 1)).clamp(max=lab.shape[1] - 1)
    per = lab[:, col]
    seg = torch.zeros(rows, n, dtype=torch.int64, device=labels.device)
    if n > 1:
        seg[:, 1:] = (per[:, 1:] != per[:, :-1]).long().cumsum(1)
    lim = torch.full((rows,), n, device=labels.device) if limit is None else limit.reshape(-1).long().clamp(0, n)
    inside = pos[None, :] < lim.reshape(rows, 1)
    # Segments live in [0, n); each element outside the limit is its own key in [n, 2n).
    key = torch.where(inside, seg, n + pos[None, :])
    return (key + torch.arange(rows, device=labels.device)[:, None] * (2 * n)).reshape(-1)


def compare_unordered(where: str, ref: torch.Tensor, out: torch.Tensor, tol: Tolerance, *,
                      keys: torch.Tensor, what: str, exact: bool | None = None) -> tuple[Verdict, dict[str, float]]:
    """Values compared as multisets per key (same-shape tensors; `keys` flat, one per element)."""
    if ref.numel() == 0:
        return PASS, {"max_abs_err": 0.0, "max_rel_err": 0.0}
    r, o, perm = _sorted_pair(ref.reshape(-1), out.reshape(-1), keys)
    verdict, stats = compare_values(where, r, o, tol, exact=exact)
    if verdict.passed:
        return verdict, stats
    bad = (r != o) if (_exact_kind(r.dtype) if exact is None else exact) else ~torch.isclose(_as_wide(o), _as_wide(r), rtol=tol.rtol, atol=tol.atol, equal_nan=True)
    i = int(bad.nonzero()[0]) if bool(bad.any()) else 0
    n = int(bad.sum())
    return Verdict(Status.INCORRECT_NUMERICS,
                   f"{where}: {n} of {ref.numel()} elements differ even {what}; first in the group holding "
                   f"{_index(int(perm[i]), ref.shape)}: got {o[i].item()}, expected {r[i].item()}"), stats


def compare_tied_indices(where: str, ref: torch.Tensor, out: torch.Tensor, source: torch.Tensor, dim: int | None, *,
                         distinct: bool) -> Verdict:
    """Indices into `source` along `dim` that may differ from the reference's only between equal values."""
    if ref.numel() == 0:
        return PASS
    src = source.reshape(-1) if dim is None else source
    d = 0 if dim is None else dim % max(src.dim(), 1)
    r_idx, o_idx = ref.to(torch.int64), out.to(torch.int64)
    if dim is None:
        r_idx, o_idx = r_idx.reshape(-1), o_idx.reshape(-1)
    elif o_idx.dim() == src.dim() - 1:  # keepdim=False: the reduced dim is gone
        r_idx, o_idx = r_idx.unsqueeze(d), o_idx.unsqueeze(d)
    size = src.shape[d] if src.dim() else 1
    bad = (o_idx < 0) | (o_idx >= size)
    if bool(bad.any()):
        i = int(bad.reshape(-1).nonzero()[0])
        return Verdict(Status.INCORRECT_NUMERICS, f"{where}: index {o_idx.reshape(-1)[i].item()} at {_index(i, out.shape)} "
                                                  f"is outside [0, {size}) of {tuple(src.shape)} along dim {d}")
    got, want = src.gather(d, o_idx), src.gather(d, r_idx.clamp(0, max(size - 1, 0)))
    differ = got != want
    if src.dtype.is_floating_point or src.dtype.is_complex:
        differ &= ~(torch.isnan(got) & torch.isnan(want))
    if bool(differ.any()):
        i = int(differ.reshape(-1).nonzero()[0])
        return Verdict(Status.INCORRECT_NUMERICS,
                       f"{where}: {int(differ.sum())} of {ref.numel()} indices point at other values than the reference's "
                       f"(ties may be broken either way, other values may not); first at {_index(i, out.shape)}: got index "
                       f"{o_idx.reshape(-1)[i].item()} (value {got.reshape(-1)[i].item()}), expected "
                       f"{r_idx.reshape(-1)[i].item()} (value {want.reshape(-1)[i].item()})")
    if distinct and o_idx.shape[d] > 1:
        s = torch.sort(o_idx, dim=d).values
        rep = s.narrow(d, 1, s.shape[d] - 1) == s.narrow(d, 0, s.shape[d] - 1)
        if bool(rep.any()):
            i = int(rep.reshape(-1).nonzero()[0])
            return Verdict(Status.INCORRECT_NUMERICS, f"{where}: index {s.narrow(d, 1, s.shape[d] - 1).reshape(-1)[i].item()} "
                                                      f"repeats along dim {d}; each must be chosen once")
    return PASS


def scatter_writes(where: str, out: torch.Tensor, values: Mapping[str, Any], inputs: Mapping[str, Any]) -> Verdict:
    """out = self with src written along dim at index, any one of several writes to one element winning.

    Reads the op's own parameters (self, dim, index, src; self and src as they were before the call).
    """
    base, index, src = inputs["self"], inputs["index"], inputs["src"]
    dim = int(values["dim"])
    if base.dim() == 0:
        base, out, index, src = base.reshape(1), out.reshape(1), index.reshape(1), src.reshape(1)
    d = dim % base.dim()
    idx = index.long()
    coords = list(torch.meshgrid(*[torch.arange(n, device=idx.device) for n in idx.shape], indexing="ij"))
    coords[d] = idx
    strides = torch.empty(base.shape, device="meta").stride()
    flat = sum(c * st for c, st in zip(coords, strides, strict=True)).reshape(-1)
    val = src[tuple(slice(0, n) for n in idx.shape)].reshape(-1)
    o, b = out.reshape(-1), base.reshape(-1)

    def same(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        eq = x == y
        return eq | (torch.isnan(x) & torch.isnan(y)) if x.dtype.is_floating_point or x.dtype.is_complex else eq
    written = torch.zeros(o.numel(), dtype=torch.bool, device=o.device).index_fill_(0, flat, True)
    hits = torch.zeros(o.numel(), dtype=torch.int64, device=o.device).index_put_((flat,), same(o[flat], val).long(),
                                                                                accumulate=True)
    ok = torch.where(written, hits > 0, same(o, b))
    if bool(ok.all()):
        return PASS
    i = int((~ok).nonzero()[0])
    what = "none of the values scattered there" if bool(written[i]) else "the input's value (nothing is scattered there)"
    return Verdict(Status.INCORRECT_NUMERICS, f"{where}: {int((~ok).sum())} of {o.numel()} elements hold neither; first "
                                              f"at {_index(i, out.shape)}: got {o[i].item()}, expected {what}")


# Validators of `any_valid` rules: the record names one; each reads the op's arguments by their names.
VALIDATORS = {"scatter_writes": scatter_writes}


def _default_value(text: str | None) -> Any:
    """An int or bool parameter's upstream default text as a value ('-1' -> -1, 'False' -> False)."""
    table = {"True": True, "False": False, "None": None}
    if text in table:
        return table[text]
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def rule_values(task: Task, ref_args: Mapping[str, Any], ref_leaves: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """What rules may name: the reference's arguments after its call (upstream defaults for absent ones), its returns."""
    values = {p.name: _default_value(p.default) for p in task.params if p.name not in ref_args}
    values.update(ref_args)
    values.update(dict(ref_leaves))
    if "return" in values:  # a single returned tensor: rules name it 'return[0]'
        values["return[0]"] = values["return"]
    return values


def active_rule(task: Task, target: str, values: Mapping[str, Any]) -> CompareRule | None:
    """The task's rule for this target, unless its `unless` flag is set in this call."""
    # A single returned tensor flattens to the path 'return'; records name it 'return[0]' as for tuples.
    target = "return[0]" if target == "return" else target
    for rule in task.compare:
        if rule.target == target and not (rule.unless and values.get(rule.unless) is True):
            return rule
    return None


def _int(x: int | str | None, values: Mapping[str, Any]) -> int | None:
    v = values.get(x) if isinstance(x, str) else x
    return int(v.item()) if isinstance(v, torch.Tensor) else (None if v is None else int(v))


def compare_declared(where: str, ref: Any, out: Any, rule: CompareRule, *, values: Mapping[str, Any],
                     inputs: Mapping[str, Any], tolerance: Mapping[str, Tolerance]) -> tuple[Verdict, dict[str, float]]:
    """One output by its declared rule: metadata as usual, then values by the rule's mode."""
    if not isinstance(ref, torch.Tensor):
        return compare_output(where, ref, out, semantics="deterministic", tolerance=tolerance)
    meta = check_metadata(where, ref, out, strides=False)
    if not meta.passed:
        return meta, {}
    tol = tolerance_for(ref.dtype, tolerance)
    if rule.mode == "any_valid":
        return VALIDATORS[rule.validator](where, out, values, {**values, **inputs}), {}
    if rule.mode == "ties_allowed":
        source = inputs.get(rule.source, values.get(rule.source))
        return compare_tied_indices(where, ref, out, source, _int(rule.dim, values), distinct=rule.distinct), {}
    if rule.mode == "unordered_within_segments":
        seg = rule.segments
        limit = values.get(seg.limit) if seg.limit else None
        if limit is not None and not isinstance(limit, torch.Tensor):
            limit = torch.tensor([int(limit)])
        keys = segment_keys(ref.shape, values[seg.labels], _int(seg.repeat, values) or 1,
                            None if limit is None else limit.to(ref.device))
        return compare_unordered(where, ref, out, tol, keys=keys.to(ref.device), exact=exact_for(ref.dtype, tolerance),
                                 what="comparing each segment as a set (its order is free)")
    dim = _int(rule.dim, values)
    if dim is None or ref.dim() == 0:
        r, o = ref.reshape(-1), out.reshape(-1)
    else:
        r, o = ref.movedim(dim, -1).contiguous(), out.movedim(dim, -1).contiguous()
    n = r.shape[-1] if r.dim() else 1
    keys = torch.arange(r.numel(), device=r.device) // max(n, 1)
    return compare_unordered(where, r, o, tol, keys=keys, exact=exact_for(ref.dtype, tolerance),
                             what=f"as a multiset along dim {rule.dim}")
