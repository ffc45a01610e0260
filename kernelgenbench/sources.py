"""The registry of operator sources: everything the pipeline knows about one upstream, in one entry.

Each source (ATen, vLLM, cuBLAS, or one a user adds) says here how it is extracted, which JSON Schema
its `details` follow, how a candidate is called and what it must not call (for the prompt), where its
native baseline comes from and how the dataset card counts it. Nothing downstream branches on a source's
name: the schema, prompt, card, baselines, report and CLI read these entries.

The module is light on purpose (standard library only): the extractor, CLI command and native baseline
are "module:attribute" strings imported when used, so the data layer and the evaluator can read the
registry without importing extractor code (the pipeline reads one way: source -> extractor -> record ->
dataset -> evaluator).
"""

from __future__ import annotations

import contextlib
import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kernelgenbench.errors import KgbError


@dataclass(frozen=True)
class Source:
    """One upstream operator source and what each stage of the pipeline needs to know about it."""

    name: str  # the id prefix, the record's `source` and its key under `details`
    upstream: str  # provenance.upstream of its records ('pytorch' for ATen)
    title: str  # how people write it ('ATen', 'vLLM')
    schema: str  # "package:resource" of the JSON Schema of details.<name> ($id urn:kernelgenbench:<name>)
    extractor: str  # "module:function" that extracts its records
    calling_convention: str  # the prompt's calling convention; {entry} is the entry point, {op} name.overload
    forbidden: tuple[str, ...]  # the prompt's source-specific forbidden lines
    forbidden_imports: tuple[tuple[str, str], ...] = ()  # (module, why): the static check refuses importing them
    native: str | None = None  # "module:function": task -> (callable | None, why), its native baseline
    native_is_reference: bool = False  # the reference is the native op itself (time it once)
    cli: str | None = None  # module whose register(app, extract_app) adds `kgb extract <name>`
    curated: str | None = None  # "data file[:key]" of the curated list in kernelgenbench/data
    card_text: str = "{tasks} {title} tasks"  # the card's curated summary: {operators} {tasks} {title}
    colour: str = "#8172b3"  # its colour in the report's charts

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise KgbError(f"source name {self.name!r}: lower-case letters, digits and '_' only (it is an id prefix)")

    @property
    def schema_id(self) -> str:
        """The $id its details schema must declare."""
        return f"urn:kernelgenbench:{self.name}"


_REGISTRY: dict[str, Source] = {}


def register(source: Source) -> Source:
    """Add a source; a second source of the same name is an error."""
    if source.name in _REGISTRY:
        raise KgbError(f"source {source.name!r} is already registered")
    _REGISTRY[source.name] = source
    return source


def unregister(name: str) -> None:
    """Remove a registered source (for tests and plug-ins that add one for a while)."""
    _REGISTRY.pop(name, None)


@contextlib.contextmanager
def registered(source: Source) -> Iterator[Source]:
    """Register `source` for the duration of a with-block."""
    register(source)
    try:
        yield source
    finally:
        unregister(source.name)


def sources() -> tuple[Source, ...]:
    """Every registered source, in registration order (the built-in ones first)."""
    return tuple(_REGISTRY.values())


def get(name: str) -> Source:
    """The source called `name`, or a KgbError naming the registered ones."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KgbError(f"unknown source {name!r}; the registered sources are {', '.join(_REGISTRY)}") from None


def resolve(path: str) -> Any:
    """The object a "module:attribute" string names, imported now."""
    module, _, attr = path.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise KgbError(f"{path}: cannot import it ({type(exc).__name__}: {exc})") from exc


register(Source(
    name="aten", upstream="pytorch", title="ATen",
    schema="kernelgenbench.dataset:schema/aten.schema.json",
    extractor="kernelgenbench.extractors.aten:extract",
    calling_convention=(
        "Define `{entry}` so that it can be called exactly as `torch.ops.aten.{op}` is: the same parameters in "
        "the same order (keyword-only ones after `*`), returning what the op returns. Out= and in-place "
        "overloads write their results into the given tensors and return them."),
    forbidden=(
        "Calling the op under test or any other torch compute op: torch.* / Tensor methods / torch.nn.functional "
        "that compute values, and torch.ops.aten.* ops that do. Allowed in the wrapper: allocation (torch.empty, "
        "empty_like, empty_strided, or their torch.ops.aten forms), views and metadata (view, reshape of "
        "contiguous tensors, as_strided, stride, shape, dtype) and copying a result into an output.",),
    native="kernelgenbench.evaluator.natives:aten", native_is_reference=True,
    cli="kernelgenbench.cli.extract_aten", curated="aten_curated.yaml:names",
    card_text="{operators} ATen operators ({tasks} tasks: every overload its own row)", colour="#4c72b0",
))
register(Source(
    name="vllm", upstream="vllm", title="vLLM",
    schema="kernelgenbench.dataset:schema/vllm.schema.json",
    extractor="kernelgenbench.extractors.vllm.extract:extract",
    calling_convention=(
        "Define `{entry}` with the op's parameters in schema order. Arguments marked `Tensor!` are outputs or "
        "in-out buffers that you write in place; the op returns what its schema returns (usually nothing)."),
    forbidden=(
        "Importing vllm or calling its ops (torch.ops._C*, torch.ops._moe_C, vllm._custom_ops, flashinfer), and "
        "torch compute ops (the same allowance as ATen tasks: allocation, views, metadata).",),
    forbidden_imports=(("vllm", "the library under test (vLLM custom ops)"),),
    native="kernelgenbench.evaluator.natives:vllm",
    cli="kernelgenbench.cli.extract_vllm", curated="vllm_curated_names.yaml:curated",
    card_text="{operators} vLLM ops ({tasks} tasks: one per registered op a curated op stands for)",
    colour="#dd8452",
))
register(Source(
    name="cublas", upstream="cublas", title="cuBLAS",
    schema="kernelgenbench.dataset:schema/cublas.schema.json",
    extractor="kernelgenbench.extractors.cublas.records:extract",
    calling_convention=(
        "Define `{entry}` with the routine's C parameters minus the handle, in the header's order and names. "
        "Device pointers arrive as torch tensors (honour the increments, leading dimensions and transpose "
        "flags exactly as BLAS does) and host scalars as Python numbers; enums come as the workloads show "
        "them. Write the outputs in place and return nothing."),
    forbidden=(
        "cuBLAS in any form: ctypes/cffi bindings, cupy, nvmath, and torch ops that call it (torch.matmul, mm, bmm, "
        "addmm, mv, dot, torch.linalg.*, einsum, tensordot), and other torch compute ops.",),
    native="kernelgenbench.evaluator.natives:cublas",
    cli="kernelgenbench.cli.extract_cublas", curated="cublas_curated.yaml",
    card_text="{tasks} cuBLAS routines", colour="#55a868",
))
