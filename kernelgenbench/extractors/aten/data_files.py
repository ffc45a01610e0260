"""Load the ATen data files shipped in kernelgenbench/data (curated names, categories, policies)."""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import yaml

from kernelgenbench.errors import KgbError


@functools.cache
def load(name: str) -> dict[str, Any]:
    """The parsed YAML of kernelgenbench/data/aten_<name>.yaml."""
    path = resources.files("kernelgenbench.data") / f"aten_{name}.yaml"
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise KgbError(f"kernelgenbench/data/aten_{name}.yaml: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise KgbError(f"kernelgenbench/data/aten_{name}.yaml: expected a mapping at the top level")
    return data


def curated_names() -> tuple[str, ...]:
    """The 110 curated ATen operator names (each overload of each is a task)."""
    return tuple(load("curated")["names"])


def root_name(name: str) -> str:
    """The op name with the trailing '_' of in-place ops removed ('add_' -> 'add'; dunders kept)."""
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name
