"""Run one training step of each architecture on the meta device under the recorders."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from kernelgenbench.errors import KgbError
from kernelgenbench.trace.models import DTYPE, ModelSpec, catalogue
from kernelgenbench.trace.recorder import DispatchRecorder, FunctionRecorder, Recording


def _loss(out: Any) -> torch.Tensor:
    """The model's own loss; a model without one (none in the catalogue today) sums its first output."""
    loss = getattr(out, "loss", None)
    if loss is not None:
        return loss
    first = out[0] if isinstance(out, tuple) else next(iter(out.values()))
    return first.float().sum()


def trace_model(spec: ModelSpec) -> Recording:
    """One forward and backward step of `spec` on meta tensors, every aten call recorded."""
    try:
        import transformers  # noqa: F401
    except ImportError:
        raise KgbError("tracing needs `transformers`: pip install 'kernelgenbench[trace]'") from None
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.device("meta"):
            model = spec.build().to(DTYPE)
        model.train()
        inputs = spec.inputs()
        rec = Recording()
        with FunctionRecorder(rec), DispatchRecorder(rec):
            loss = _loss(model(**inputs))
            loss.backward()
    return rec


def trace_models(names: Sequence[str] | None = None,
                 on_model: Callable[[str], None] = lambda _: None) -> list[tuple[ModelSpec, Recording]]:
    """Trace the named architectures (all by default), in catalogue order."""
    specs = catalogue()
    if names:
        known = {s.name for s in specs}
        unknown = sorted(set(names) - known)
        if unknown:
            raise KgbError(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        specs = [s for s in specs if s.name in set(names)]
    out = []
    for spec in specs:
        on_model(spec.name)
        out.append((spec, trace_model(spec)))
    return out
