"""A schema for a Python wrapper of vllm/_custom_ops.py, for curated names that are wrappers, not ops.

A few of the paper's curated names (gptq_marlin_moe_repack, ...) are Python functions that loop over or
pick between registered ops. Their task is the wrapper's call: its parameters become a schema text
(annotations mapped to schema types, defaults kept, a parameter the wrapper passes to a `Tensor!`
position of the op it calls is `Tensor!`), so that the curated entry's schema can be compared with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kernelgenbench.extractors.vllm.schemas import ParsedSchema, canonical_schema
from kernelgenbench.extractors.vllm.wrappers import Wrapper

_TYPES = {
    "torch.Tensor": "Tensor", "Tensor": "Tensor", "int": "int", "float": "float", "bool": "bool", "str": "str",
    "torch.dtype": "ScalarType", "list[int]": "int[]", "list[torch.Tensor]": "Tensor[]", "list[float]": "float[]",
}


class NotASchema(ValueError):
    """The wrapper's signature has a part no schema type expresses; the message says which."""


def _type(annotation: str | None) -> str:
    if annotation is None:
        raise NotASchema("an unannotated parameter")
    a = annotation.replace(" ", "")
    m = re.fullmatch(r"(.+)\|None|None\|(.+)|Optional\[(.+)\]", a)
    if m:
        return _type(next(g for g in m.groups() if g)) + "?"
    if a in _TYPES:
        return _TYPES[a]
    raise NotASchema(f"annotation {annotation!r}")


def _returns(annotation: str | None) -> str:
    a = (annotation or "None").replace(" ", "")
    if a == "None":
        return "()"
    m = re.fullmatch(r"tuple\[(.+)\]", a)
    if m:
        parts, depth, cur = [], 0, ""
        for c in m.group(1):
            depth += {"[": 1, "]": -1}.get(c, 0)
            if c == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += c
        parts.append(cur)
        return "(" + ", ".join(_type(p) for p in parts) + ")"
    return _type(a)


def wrapper_schema(w: Wrapper, op_schemas: Mapping[tuple[str, str], ParsedSchema]) -> str:
    """The schema text of a wrapper's call; NotASchema when its signature has no schema form."""
    mutable: set[str] = set()
    for call in w.calls:
        target = op_schemas.get((call.namespace, call.op))
        if target is None:
            continue
        for arg, passed in zip(target.args, call.args, strict=False):
            if arg.mutable:
                mutable.add(passed)
        by_name = {a.name: a for a in target.args}
        for key, passed in call.keywords:
            if key in by_name and by_name[key].mutable:
                mutable.add(passed)
    decls: list[str] = []
    star = False
    for p in w.params:
        if p.kind in ("var_positional", "var_keyword"):
            raise NotASchema(f"*{p.name}")
        if p.kind == "keyword_only" and not star:
            decls.append("*")
            star = True
        t = _type(p.annotation)
        if p.name in mutable and t.startswith("Tensor"):
            t = t.replace("Tensor", "Tensor!", 1)
        decls.append(f"{t} {p.name}" + (f"={p.default}" if p.default is not None else ""))
    return f"{w.name}({', '.join(decls)}) -> {_returns(w.returns_annotation)}"


def comparable(canonical: str) -> str:
    """A canonical schema with SymInt read as int: a Python annotation cannot tell the two apart."""
    return re.sub(r"\bSymInt\b", "int", canonical)


def same_wrapper_schema(entry_schema: str, synthesized: str) -> bool:
    """Whether a curated entry's schema is the wrapper's (up to SymInt/int)."""
    return comparable(canonical_schema(entry_schema)) == comparable(canonical_schema(synthesized))
