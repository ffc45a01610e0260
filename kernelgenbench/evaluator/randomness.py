"""Whether a random op's output is an independent draw, beyond its marginal distribution (evaluator/compare.py).

Two ways a sampler can have the right marginal and still not be one, both measured against the reference's own
draw of the same size, so that structure the op itself has (a probability read from the input) is never held
against the candidate:

- **Repetition**: element i equals element i + k. A pool of random values made before the call and read
  window by window (red team 16) repeats with the pool's period; so does a kernel whose programs all start the
  generator at the same offset (every block draws the same numbers). Found as the largest autocorrelation over
  every lag, by FFT.
- **A function of the input**: `x < p` on uniform `x` has the marginal of a Bernoulli draw (red team 17
  alternated it with `x >= 1 - p` so two calls differ; red team 20 thresholded the low mantissa bits, which
  have no rank correlation). Found as the rank correlation between the output and each input of its size, and
  the correlation with each bit of the input's words, candidate against reference.

Both are z-scores with limits far in the tail (Z_LIMIT, DEPENDENCE_Z), so a true sampler fails neither in
practice. On a small output the input tests have little power (red team 20's low-bit threshold passes at 312
elements); the performance workload's millions of elements are where they bite.
"""

from __future__ import annotations

import math

import torch

Z_LIMIT = 8.0  # standard deviations, over up to 1M lags: a correct sampler exceeds it about once in 1e9 outputs
# for the input tests (a rank and up to 64 bits per input, each the difference of two draws' z-scores, so of
# deviation sqrt(2)): a correct sampler fails one about once in a million outputs
DEPENDENCE_Z = 5.5
MAX_ELEMENTS = 1 << 20  # the first this many elements are tested (a window repeats within them or not at all)
MIN_ELEMENTS = 256  # fewer: no test
MIN_OVERLAP = 4096  # a lag is tested where at least this many pairs (or half the elements) overlap


def repetition(values: torch.Tensor) -> tuple[int, float]:
    """The lag with the largest autocorrelation z-score of a flat output, and that score ((0, 0.0) when none)."""
    x = values.reshape(-1)[:MAX_ELEMENTS].double()
    n = x.numel()
    if n < MIN_ELEMENTS:
        return 0, 0.0
    x = x - x.mean()
    var = float((x * x).mean())
    if not math.isfinite(var) or var <= 0:
        return 0, 0.0
    spectrum = torch.fft.rfft(x, n=2 * n)
    sums = torch.fft.irfft(spectrum * spectrum.conj(), n=2 * n)[:n]  # sums[k] = sum_i x[i] * x[i + k]
    last = n - min(MIN_OVERLAP, n // 2)
    pairs = torch.arange(n, 0, -1, dtype=torch.float64, device=x.device)[1:last + 1]
    z = sums[1:last + 1] / (pairs * var) * pairs.sqrt()
    at = int(z.abs().argmax())
    return at + 1, float(z[at])


def _unit(x: torch.Tensor) -> torch.Tensor | None:
    """`x` centred and scaled to unit length (None for a constant: it correlates with nothing)."""
    x = x.double() - x.double().mean()
    norm = float((x * x).sum().sqrt())
    return None if norm == 0 else x / norm


def _z(a: torch.Tensor | None, b: torch.Tensor | None) -> float:
    """The correlation of two unit vectors as a z-score (n elements: correlation times sqrt(n))."""
    return 0.0 if a is None or b is None else float((a * b).sum()) * math.sqrt(a.numel())


def _bit_planes(given: torch.Tensor) -> list[torch.Tensor | None]:
    """Each bit of an input's words as a unit vector: a function of low-order bits (red team 20 thresholded a
    uniform input's mantissa bits) has no rank correlation."""
    words = _words(given)
    return [] if words is None else [_unit((words >> bit) & 1) for bit in range(8 * given.element_size())]


def _words(x: torch.Tensor) -> torch.Tensor | None:
    """An input's elements as int64 words of their bits (None for a dtype with no integer view)."""
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(x.element_size())
    if ints is None or x.is_complex():
        return None
    try:
        return x.contiguous().view(ints).to(torch.int64)
    except RuntimeError:
        return None


def _ranks(x: torch.Tensor) -> torch.Tensor:
    """Each element's rank (ties in index order: as independent of the other tensor as the draw is)."""
    key = x.double() if not x.dtype.is_complex else x.real.double()
    order = torch.argsort(torch.nan_to_num(key), stable=True)
    ranks = torch.empty_like(order, dtype=torch.float64)
    ranks[order] = torch.arange(order.numel(), dtype=torch.float64, device=order.device)
    return ranks


def not_independent(where: str, ref: torch.Tensor, out: torch.Tensor,
                    inputs: dict[str, torch.Tensor]) -> str | None:
    """Why `out` is no independent draw where the reference's `ref` is one (None: no sign of it)."""
    if out.numel() < MIN_ELEMENTS:
        return None
    lag, z = repetition(out)
    if abs(z) > Z_LIMIT and abs(repetition(ref)[1]) <= Z_LIMIT:
        return (f"{where}: the draw repeats itself: elements {lag} apart are correlated (autocorrelation z = {z:.1f}; "
                f"the reference's draw shows none): a precomputed pool read in windows, or programs that share "
                f"one generator offset")
    matched = {name: given for name, given in inputs.items() if isinstance(given, torch.Tensor)
               and given.numel() == out.numel() and given.dtype != torch.bool and not given.is_complex()}
    if not matched:
        return None
    # each draw's and each input's features are taken once
    n = min(out.numel(), MAX_ELEMENTS)
    flat = [v.reshape(-1)[:n] for v in (out, ref)]
    ranked, raw = [_unit(_ranks(v)) for v in flat], [_unit(v) for v in flat]
    for name, given in matched.items():
        g = given.reshape(-1)[:n].to(out.device)
        by_rank = _unit(_ranks(g))
        z_out, z_ref = _z(ranked[0], by_rank), _z(ranked[1], by_rank)
        if abs(z_out - z_ref) > DEPENDENCE_Z * math.sqrt(2):
            return (f"{where}: the draw follows the input {name!r} (rank correlation z = {z_out:.1f}, the reference's "
                    f"draw {z_ref:.1f}): a function of the input values, not a sampler")
        for bit, plane in enumerate(_bit_planes(g)):
            b_out, b_ref = _z(raw[0], plane), _z(raw[1], plane)
            if abs(b_out - b_ref) > DEPENDENCE_Z * math.sqrt(2):
                return (f"{where}: the draw follows bit {bit} of the input {name!r} (correlation z = {b_out:.1f}, the "
                        f"reference's draw {b_ref:.1f}): a function of the input's bits, not a sampler")
    return None
