"""The upstream docstring of an ATen op, from the Python object torch exposes it as (cheap: __doc__)."""

from __future__ import annotations

import inspect
from types import ModuleType

# torch submodule per native_functions.yaml python_module, and the name prefix the submodule drops.
_MODULES = {"nn": ("torch.nn.functional", ""), "special": ("torch.special", "special_"),
            "linalg": ("torch.linalg", "linalg_"), "fft": ("torch.fft", "fft_"), "sparse": ("torch.sparse", "")}


def _module(dotted: str) -> ModuleType | None:
    import importlib

    try:
        return importlib.import_module(dotted)
    except ImportError:
        return None


def docstring(name: str, python_module: str | None) -> tuple[str, str | None]:
    """(docstring, where it was found, e.g. 'torch.add') for op `name`; ('', None) when there is none."""
    import torch

    places: list[tuple[object, str, str]] = []
    if python_module in _MODULES:
        dotted, prefix = _MODULES[python_module]
        mod = _module(dotted)
        if mod is not None:
            places.append((mod, dotted, name.removeprefix(prefix)))
    places += [(torch, "torch", name), (torch.Tensor, "torch.Tensor", name)]
    for obj, where, attr in places:
        doc = getattr(getattr(obj, attr, None), "__doc__", None)
        if isinstance(doc, str) and doc.strip():
            return inspect.cleandoc(doc), f"{where}.{attr}"
    return "", None
