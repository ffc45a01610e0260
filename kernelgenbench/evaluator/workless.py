"""Whether the reference's result on one input takes any computing: if not, a correct call needs no launch.

Real kernels return early on degenerate inputs, and a view op's kernel is no kernel at all (the reference's
result is a view of its input; an uninitialized tensor's values are unspecified): sort along a dimension of size 1 returns its input and zero
indices, resolve_conj of a tensor without the conjugate bit returns the tensor, masked_fill_ with an all-false
mask leaves it as it was. What they return is already there (an input as given) or one value the allowlist
lets a kernel write without computing (a fill with zero, one, or a scalar argument), so requiring a Triton
launch there would fail correct kernels and prove nothing. The check is on the reference's result, never on
what the candidate did: it exempts a call only where the right answer needs no work at all. Tasks whose work
*is* moving data or filling (the allowlist's copy and fill categories) always need their launch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch

from kernelgenbench.dataset.record import Semantics, Task
from kernelgenbench.evaluator.compare import flatten
from kernelgenbench.evaluator.cost import flatten_tensors
from kernelgenbench.evaluator.dispatch_guard import policy


def _tensors(values: Iterable[Any]) -> list[torch.Tensor]:
    return [t for v in values for t in flatten_tensors(v)]


def _fill_values(pristine: Mapping[str, Any]) -> set[complex]:
    """The values a kernel may write without computing: 0, 1, and each scalar argument."""
    values: set[complex] = {0, 1}
    for v in pristine.values():
        if isinstance(v, bool | int | float):
            values.add(complex(v))
        elif isinstance(v, torch.Tensor) and v.numel() == 1 and not v.is_complex():
            values.add(complex(v.detach().reshape(()).item()))
    return values


def _given(t: torch.Tensor, inputs: list[torch.Tensor], fills: set[complex], storages: set[int] = frozenset()) -> bool:
    """An expected tensor that is empty, an input as given (same dtype, shape, values), a view the reference made of
    an input (`storages`: the reference's inputs' storages), or one allowed value."""
    if t.numel() == 0:
        return True
    if t.untyped_storage().data_ptr() in storages:
        return True
    if any(i.dtype == t.dtype and i.shape == t.shape and i.device == t.device and torch.equal(i, t) for i in inputs):
        return True
    if t.is_complex() or t.is_quantized:
        return False
    flat = t.detach().reshape(-1)
    first = flat[0]
    if not bool((flat == first).all()) or bool(torch.isnan(first.to(torch.float64))):
        return False
    return complex(first.item()) in fills


def needs_work(task: Task, ref_return: Any, ref_args: Mapping[str, Any], pristine: Mapping[str, Any]) -> bool:
    """False when every expected output and written argument is empty, an input as given, or one allowed value; an
    output also when it is a view of the reference's input; every output of an op whose values are unspecified."""
    if task.semantics is Semantics.UNINITIALIZED:
        return False  # its values are unspecified (empty_strided): only its shape, strides and dtype are the answer
    p = policy()
    if task.category in p.copy_categories or task.category in p.fill_categories:
        return True
    leaves = [v for _, v in flatten(ref_return, "return") if v is not None]
    if any(not isinstance(v, torch.Tensor) for v in leaves):
        return True  # a scalar result is a value someone computed
    returned = _tensors(leaves)
    written = _tensors(ref_args[q.name] for q in task.mutable_params if q.name in ref_args)
    if not returned and not written:
        return True
    inputs = _tensors(pristine.values())
    fills = _fill_values(pristine)
    # the reference's result a view of what it was given (t, expand, narrow, a reshape that needs no copy): the
    # answer is there already; a written argument is compared by its values, so an in-place op still needs its work
    storages = {x.untyped_storage().data_ptr() for x in _tensors(ref_args.values()) if x.numel()}
    return not (all(_given(t, inputs, fills, storages) for t in returned)
                and all(_given(t, inputs, fills) for t in written))
