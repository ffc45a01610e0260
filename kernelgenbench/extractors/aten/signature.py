"""Map a torchgen FunctionSchema onto the record's params and returns (kinds, mutability, defaults)."""

from __future__ import annotations

from typing import Any

from torchgen.model import Argument, BaseType, FunctionSchema, ListType, OptionalType, Return, Type

# By BaseTy name: the set of base types differs between torch versions (Dimname left in 2.12).
_BASE_KIND = {
    "Tensor": "tensor", "int": "int", "SymInt": "int", "DeviceIndex": "int", "float": "float", "bool": "bool",
    "SymBool": "bool", "str": "str", "Dimname": "str", "Scalar": "scalar", "ScalarType": "scalar_type",
    "Layout": "layout", "Device": "device", "MemoryFormat": "memory_format", "Generator": "generator",
    "QScheme": "enum",
}
_LIST_KIND = {"tensor": "tensor_list", "int": "int_list", "float": "float_list", "bool": "bool_list"}
_RETURN_KINDS = {"tensor", "tensor_list", "optional_tensor", "int", "float", "bool", "scalar", "scalar_type"}


def type_kind(t: Type) -> tuple[str, bool]:
    """The record's kind for a torchgen type, and whether None is allowed."""
    if isinstance(t, OptionalType):
        inner, _ = type_kind(t.elem)
        return ("optional_tensor" if inner == "tensor" else inner), True
    if isinstance(t, ListType):
        elem = t.elem.elem if isinstance(t.elem, OptionalType) else t.elem
        inner, _ = type_kind(elem)
        return _LIST_KIND.get(inner, "other"), False
    if isinstance(t, BaseType):
        return _BASE_KIND.get(t.name.name, "other"), False
    return "other", False


def type_text(a: Argument | Return) -> str:
    """The upstream type text with its alias annotation: 'Tensor(a!)', 'int[1]?'."""
    text = str(a.type)
    if a.annotation is not None:
        text = text.replace("Tensor", f"Tensor({a.annotation})", 1)
    return text


def params(schema: FunctionSchema) -> list[dict[str, Any]]:
    """The record's params, in schema order (positional, keyword-only, then out=)."""
    args = schema.arguments
    kw_only = {id(a) for a in (*args.flat_kwarg_only, *args.out)}
    outs = {id(a) for a in args.out}
    result = []
    for a in args.flat_all:
        kind, optional = type_kind(a.type)
        mutable = a.is_write
        result.append({
            "name": a.name,
            "type": type_text(a),
            "kind": kind,
            "dtype": None,
            "mutable": mutable,
            "alias": "|".join(a.annotation.alias_set) if a.annotation else None,
            "optional": optional,
            "default": a.default,
            "keyword_only": id(a) in kw_only,
            "direction": ("out" if id(a) in outs else "inout") if mutable else "in",
        })
    return result


def returns(schema: FunctionSchema) -> list[dict[str, Any]]:
    """The record's returns; 'alias' names the alias set a returned argument shares."""
    result = []
    for r in schema.returns:
        kind, _ = type_kind(r.type)
        result.append({
            "name": r.name or "",
            "type": type_text(r),
            "kind": kind if kind in _RETURN_KINDS else "other",
            "alias": "|".join(r.annotation.alias_set) if r.annotation else None,
        })
    return result
