"""vllm/_custom_ops.py read with libcst: the Python wrapper of each op.

For each module-level function: its parameters (annotations and defaults as source text), docstring,
which `torch.ops.<ns>.<op>` it calls (and with which positional arguments), what it allocates, and what it
returns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider

from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location

WRAPPER_FILE = "vllm/_custom_ops.py"
_OP_CHAIN = re.compile(r"torch\.ops\.(\w+)\.(\w+)")
_ALLOCATORS = re.compile(
    r"(torch\.(empty|zeros|ones|full|empty_like|zeros_like|ones_like|full_like|empty_strided|rand|randn)"
    r"|.+\.new_(empty|zeros|ones|full))$"
)
_EMPTY = cst.Module(body=[])


@dataclass(frozen=True)
class WrapperParam:
    """One parameter of a wrapper function."""

    name: str
    annotation: str | None
    default: str | None
    kind: str  # positional | keyword_only | var_positional | var_keyword


@dataclass(frozen=True)
class OpCall:
    """A call of `torch.ops.<namespace>.<op>` inside a wrapper, with its argument source texts."""

    namespace: str
    op: str
    args: tuple[str, ...]
    keywords: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Allocation:
    """`target = torch.empty(...)` and the like: a buffer the wrapper makes for the op."""

    target: str
    call: str


@dataclass(frozen=True)
class Wrapper:
    """A function of vllm/_custom_ops.py."""

    name: str
    line: int
    params: tuple[WrapperParam, ...]
    returns_annotation: str | None
    docstring: str | None
    calls: tuple[OpCall, ...]
    allocates: tuple[Allocation, ...]
    returns: tuple[str, ...]

    @property
    def ops(self) -> tuple[tuple[str, str], ...]:
        """(namespace, op) pairs called, in first-call order, without repeats."""
        return tuple(dict.fromkeys((c.namespace, c.op) for c in self.calls))


def _code(node: cst.CSTNode | None) -> str | None:
    return None if node is None else _EMPTY.code_for_node(node).strip()


class _BodyScan(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[OpCall] = []
        self.allocs: list[Allocation] = []
        self.returns: list[str] = []

    def visit_Call(self, node: cst.Call) -> None:
        name = get_full_name_for_node(node.func) or ""
        m = _OP_CHAIN.match(name)
        if m:
            pos = tuple(_code(a.value) or "" for a in node.args if a.keyword is None and not a.star)
            kw = tuple((a.keyword.value, _code(a.value) or "") for a in node.args if a.keyword is not None)
            self.calls.append(OpCall(m.group(1), m.group(2), pos, kw))

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and _ALLOCATORS.match(get_full_name_for_node(node.value.func) or ""):
            for t in node.targets:
                self.allocs.append(Allocation(_code(t.target) or "", _code(node.value) or ""))

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.returns.append(_code(node.value) or "")


def _params(p: cst.Parameters) -> tuple[WrapperParam, ...]:
    out: list[WrapperParam] = []

    def add(param: cst.Param, kind: str) -> None:
        ann = _code(param.annotation.annotation) if param.annotation else None
        out.append(WrapperParam(param.name.value, ann, _code(param.default), kind))

    for param in (*p.posonly_params, *p.params):
        add(param, "positional")
    if isinstance(p.star_arg, cst.Param):
        add(p.star_arg, "var_positional")
    for param in p.kwonly_params:
        add(param, "keyword_only")
    if p.star_kwarg is not None:
        add(p.star_kwarg, "var_keyword")
    return tuple(out)


def _module_functions(body: Sequence[cst.CSTNode]) -> Iterator[cst.FunctionDef]:
    """Functions at module level, also those defined under a module-level if/try/with."""
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            yield stmt
        elif isinstance(stmt, (cst.If, cst.Try, cst.With)):
            blocks = [stmt.body]
            if isinstance(stmt, cst.If) and stmt.orelse is not None:
                blocks.append(stmt.orelse.body if isinstance(stmt.orelse, cst.Else) else stmt.orelse)
            if isinstance(stmt, cst.Try):
                blocks.extend(h.body for h in stmt.handlers)
            for b in blocks:
                inner = b.body if isinstance(b, cst.IndentedBlock) else [b] if isinstance(b, cst.If) else []
                yield from _module_functions(inner)


def parse_wrappers(text: str, *, file: str = WRAPPER_FILE) -> tuple[Wrapper, ...]:
    """Every module-level function of _custom_ops.py; SourceParseError (file:line) on a syntax error."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise SourceParseError(f"Python syntax error: {exc.message}", at=Location(file, exc.raw_line)) from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    out: list[Wrapper] = []
    for fn in _module_functions(module.body):
        scan = _BodyScan()
        fn.body.visit(scan)
        out.append(Wrapper(
            name=fn.name.value,
            line=positions[fn].start.line,
            params=_params(fn.params),
            returns_annotation=_code(fn.returns.annotation) if fn.returns else None,
            docstring=fn.get_docstring(),
            calls=tuple(scan.calls),
            allocates=tuple(scan.allocs),
            returns=tuple(scan.returns),
        ))
    return tuple(out)


def wrapper_for(wrappers: Sequence[Wrapper], namespace: str, op: str) -> Wrapper | None:
    """The wrapper of an op: the function of the op's name that calls it, else the first that calls it."""
    callers = [w for w in wrappers if (namespace, op) in w.ops]
    named = [w for w in callers if w.name == op]
    return (named or callers or [None])[0]


def wrapper_to_dict(w: Wrapper) -> dict[str, object]:
    """The wrapper as the JSON object stored under details.vllm.wrapper."""
    return {
        "name": w.name,
        "file": WRAPPER_FILE,
        "line": w.line,
        "params": [{"name": p.name, "annotation": p.annotation, "default": p.default, "kind": p.kind}
                   for p in w.params],
        "returns_annotation": w.returns_annotation,
        "docstring": w.docstring,
        "calls": [f"torch.ops.{ns}.{op}" for ns, op in w.ops],
        "allocates": [{"target": a.target, "call": a.call} for a in w.allocates],
        "returns": list(w.returns),
    }
