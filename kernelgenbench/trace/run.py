"""Run one step of each architecture (data, training step, optimizer, sampling) on the meta device under the recorders."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from kernelgenbench.errors import KgbError
from kernelgenbench.trace.models import DTYPE, ModelSpec, catalogue
from kernelgenbench.trace.phases import make_optimizer, optimizer_step
from kernelgenbench.trace.recorder import DispatchRecorder, FunctionRecorder, Recording


def _loss(out: Any) -> torch.Tensor:
    """The model's own loss; a model without one (none in the catalogue today) sums its first output."""
    loss = getattr(out, "loss", None)
    if loss is not None:
        return loss
    first = out[0] if isinstance(out, tuple) else next(iter(out.values()))
    return first.float().sum()


def _build(spec: ModelSpec) -> torch.nn.Module:
    """The model in bfloat16 on the meta device (legacy constructors such as torch.FloatTensor ignore the
    default device, so the result moves to meta as well)."""
    if spec.on_cpu:
        model = spec.build()
        # integer scalars stay: the model computes its shapes from them
        return model._apply(lambda t: t if t.dim() == 0 and not t.is_floating_point()
                            else t.to(device="meta", dtype=DTYPE if t.is_floating_point() else t.dtype))
    with torch.device("meta"):
        model = spec.build()
    return model.to(device="meta", dtype=DTYPE)


def _recorded(rec: Recording, phase: str, fn: Callable[[], Any]) -> None:
    rec.phase = phase
    with FunctionRecorder(rec), DispatchRecorder(rec):
        fn()


def trace_model(spec: ModelSpec) -> Recording:
    """One step of `spec` on meta tensors, every aten call recorded with its phase (data.PHASES): the
    batch preparation if any, forward and backward, the optimizer step, and sampling for decoders."""
    try:
        import transformers
    except ImportError:
        raise KgbError("tracing needs `transformers`: pip install 'kernelgenbench[trace]'") from None
    torch.manual_seed(0)
    rec = Recording()
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()  # generate's notes on meta eos ids and padding side
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _step(spec, rec)
    finally:
        transformers.logging.set_verbosity(verbosity)
    return rec


def _step(spec: ModelSpec, rec: Recording) -> None:
    if spec.data is not None:
        _recorded(rec, "data", spec.data)
    model = _build(spec)
    model.train()
    inputs = spec.inputs()

    def train() -> None:
        loss = spec.loss(model, inputs) if spec.loss is not None else _loss(model(**inputs))
        loss.backward()

    _recorded(rec, "train", train)
    optimizer = make_optimizer(model)
    optimizer.step()  # the first step creates the optimizer's state: once per run, not per step
    _recorded(rec, "optimizer", lambda: optimizer_step(model, optimizer))
    if spec.generate is not None:
        model.eval()
        with torch.no_grad():
            _recorded(rec, "generate", lambda: spec.generate(model))


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
