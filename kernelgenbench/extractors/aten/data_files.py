"""Load the ATen data files shipped in kernelgenbench/data (curated names, categories, policies).

The hand-written entries (comparison rules, cost entries, tolerances) are read strictly: an unknown or a
missing key is an error naming file:line and the key, so a misspelt key cannot be dropped in silence.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from kernelgenbench.datafiles import DataFile, check_keys, load_data_copy

COMPARE_KEYS = ("targets", "mode", "upstream")
COMPARE_OPTIONAL = ("source", "dim", "distinct", "unless", "needs", "not_with", "validator", "segments")
COST_KEYS = ("flops", "unit", "reads", "writes", "access")


def _check_compare(df: DataFile) -> None:
    for op, rules in (df.data.get("ops") or {}).items():
        for i, _ in enumerate(rules or ()):
            check_keys(df, ("ops", op, i), required=COMPARE_KEYS, optional=COMPARE_OPTIONAL,
                       what=f"compare rule of {op!r}")


def _check_costs(df: DataFile) -> None:
    check_keys(df, ("default",), required=(), optional=COST_KEYS, what="cost entry 'default'")
    for section in ("categories", "names"):
        for key in df.data.get(section) or {}:
            check_keys(df, (section, key), required=(), optional=COST_KEYS, what=f"cost entry {key!r}")


def _check_tolerances(df: DataFile) -> None:
    for dtype in df.data.get("default") or {}:
        check_keys(df, ("default", dtype), required=("atol", "rtol"), what=f"tolerance of {dtype}")
    for category, by_dtype in (df.data.get("categories") or {}).items():
        for dtype in by_dtype or {}:
            check_keys(df, ("categories", category, dtype), required=("atol", "rtol"),
                       what=f"tolerance of {category}/{dtype}")


_CHECKS: dict[str, Callable[[DataFile], None]] = {
    "compare": _check_compare, "costs": _check_costs, "tolerances": _check_tolerances}


def check(name: str, df: DataFile) -> None:
    """Raise SourceParseError (file:line, the key) on the first malformed entry of aten_<name>.yaml as parsed."""
    if name in _CHECKS:
        _CHECKS[name](df)


@functools.cache
def load(name: str) -> dict[str, Any]:
    """The parsed YAML of kernelgenbench/data/aten_<name>.yaml, its curated entries checked."""
    df = load_data_copy(f"aten_{name}.yaml", top=dict)
    check(name, df)
    return df.data


def curated_names() -> tuple[str, ...]:
    """The 110 curated ATen operator names (each overload of each is a task)."""
    return tuple(load("curated")["names"])


def root_name(name: str) -> str:
    """The op name with the trailing '_' of in-place ops removed ('add_' -> 'add'; dunders kept)."""
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name
