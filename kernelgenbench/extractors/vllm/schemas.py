"""Op schemas, parsed by torch's own parser, with each argument's type text kept as upstream wrote it.

torch._C.parse_schema is the authority (it accepts vLLM's `Tensor!` shorthand); it prints `Tensor!` as
`Tensor($0! -> )` and loses ScalarType/Layout behind `int`, so the type text and the normalized kind come
from the source text, split at the same top-level commas torch splits at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location

_BASE_KINDS = {
    "Tensor": "tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool", "str": "str",
    "Scalar": "scalar", "ScalarType": "scalar_type", "Layout": "layout", "Device": "device",
    "MemoryFormat": "memory_format", "Generator": "generator", "complex": "complex",
}
_LIST_KINDS = {"tensor": "tensor_list", "int": "int_list", "float": "float_list", "bool": "bool_list"}
_RETURN_KINDS = {"tensor", "tensor_list", "optional_tensor", "int", "float", "bool", "scalar", "scalar_type"}
_ALIAS = re.compile(r"\((\w+)!?\)|!")


@dataclass(frozen=True)
class SchemaArg:
    """One schema argument."""

    name: str
    type_text: str
    kind: str
    optional: bool
    mutable: bool
    alias: str | None
    default: str | None
    keyword_only: bool


@dataclass(frozen=True)
class SchemaReturn:
    """One returned value."""

    name: str
    type_text: str
    kind: str
    alias: str | None


@dataclass(frozen=True)
class ParsedSchema:
    """A schema: the source text, torch's canonical print of it, and its arguments and returns."""

    text: str
    canonical: str
    name: str
    overload: str
    args: tuple[SchemaArg, ...]
    returns: tuple[SchemaReturn, ...]


def canonical_schema(text: str) -> str:
    """str(torch._C.parse_schema(text)): the form two schema texts are compared in."""
    return str(torch._C.parse_schema(text))


def split_top_level(text: str) -> list[str]:
    """Split at commas outside brackets and string literals; empty pieces dropped."""
    parts: list[str] = []
    depth, quote, cur = 0, "", []
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
            cur.append(c)
        elif c in "([{":
            depth += 1
            cur.append(c)
        elif c in ")]}":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur).strip())
    return [p for p in parts if p]


def type_kind(type_text: str) -> tuple[str, bool]:
    """The normalized kind of a schema type and whether it is optional: 'Tensor!?' -> ('optional_tensor', True)."""
    t = _ALIAS.sub("", type_text).replace(" ", "")
    optional = t.endswith("?")
    t = t.rstrip("?")
    is_list = False
    m = re.fullmatch(r"(.+?)\??\[\d*\]", t)
    if m:
        is_list, t = True, m.group(1)
    base = _BASE_KINDS.get(t, "other")
    if is_list:
        return _LIST_KINDS.get(base, "other"), optional
    if base == "tensor" and optional:
        return "optional_tensor", True
    return base, optional


def _alias_of(type_text: str) -> str | None:
    m = re.search(r"\((\w+)!?\)", type_text)
    return m.group(1) if m else None


def _split_decl(decl: str, name: str) -> tuple[str, str | None]:
    """('Tensor! out', 'out') -> ('Tensor!', None); ('float eps=1e-6', 'eps') -> ('float', '1e-6')."""
    default = None
    eq = _top_level_eq(decl)
    if eq >= 0:
        decl, default = decl[:eq].rstrip(), decl[eq + 1 :].strip()
    # The name is torch's; what precedes it is the type, however it is spaced ('Tensor !ids' is legal).
    if not decl.endswith(name):
        return decl, default
    return decl[: len(decl) - len(name)].strip(), default


def _top_level_eq(decl: str) -> int:
    depth = 0
    for k, c in enumerate(decl):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "=" and depth == 0:
            return k
    return -1


def parse_op_schema(text: str, *, file: str, line: int) -> ParsedSchema:
    """Parse one schema text with torch; SourceParseError naming file:line when torch rejects it."""
    try:
        fs = torch._C.parse_schema(text)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "parse error"
        raise SourceParseError(f"torch cannot parse the schema of {text.split('(', 1)[0]!r}: {first}",
                               at=Location(file, line)) from None
    open_ = text.index("(")
    depth, close = 0, -1
    for k in range(open_, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth == 0:
            close = k
            break
    arg_decls = [d for d in split_top_level(text[open_ + 1 : close]) if d != "*"]
    if len(arg_decls) != len(fs.arguments):
        raise SourceParseError(f"schema of {fs.name!r}: {len(arg_decls)} declarations but torch reads "
                               f"{len(fs.arguments)} arguments", at=Location(file, line))
    args = []
    for decl, a in zip(arg_decls, fs.arguments, strict=True):
        type_text, default = _split_decl(decl, a.name)
        kind, optional = type_kind(type_text)
        args.append(SchemaArg(
            name=a.name,
            type_text=type_text,
            kind=kind,
            optional=optional or default == "None",
            mutable=bool(a.alias_info is not None and a.alias_info.is_write),
            alias=_alias_of(type_text),
            default=default,
            keyword_only=bool(a.kwarg_only),
        ))
    ret_text = text[close + 1 :].strip()
    ret_text = ret_text[2:].strip() if ret_text.startswith("->") else ret_text
    if ret_text.startswith("(") and ret_text.endswith(")"):
        ret_decls = split_top_level(ret_text[1:-1])
    else:
        ret_decls = [ret_text] if ret_text else []
    if len(ret_decls) != len(fs.returns):
        ret_decls = [str(r.type) for r in fs.returns]
    returns = []
    for decl, r in zip(ret_decls, fs.returns, strict=True):
        m = re.fullmatch(r"(.*\S)\s+(\w+)", decl)
        type_text, rname = (m.group(1), m.group(2)) if m and not decl.endswith(")") else (decl, "")
        kind, _ = type_kind(type_text)
        returns.append(SchemaReturn(name=r.name or rname, type_text=type_text,
                                    kind=kind if kind in _RETURN_KINDS else "other", alias=_alias_of(type_text)))
    return ParsedSchema(text=text, canonical=str(fs), name=fs.name, overload=fs.overload_name,
                        args=tuple(args), returns=tuple(returns))
