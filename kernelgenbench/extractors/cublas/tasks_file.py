"""The curated cuBLAS data files (data/cublas_curated.yaml, data/cublas_tasks.yaml), read strictly.

Every spec, workload and routine entry must have exactly its known keys, every routine's spec must exist
and every curated routine must have an entry: a misspelt key is an error naming file:line and the key.
(extractors/cublas/records.py reads them through `curated_names()` and `tasks_data()`.)
"""

from __future__ import annotations

import functools
from typing import Any

from kernelgenbench.datafiles import DataFile, check_keys, load_data, load_data_file
from kernelgenbench.errors import SourceParseError

SPEC_KEYS = ("module", "inputs", "reduction", "flops", "unit", "workloads")
WORKLOAD_KEYS = ("id", "purpose", "origin", "params")
WORKLOAD_OPTIONAL = ("description",)
ROUTINE_KEYS = ("spec", "params")
TOLERANCE_KEYS = ("base", "floor")


def check_tasks(df: DataFile, curated: tuple[str, ...]) -> None:
    """Raise SourceParseError (file:line, the key) on the first malformed entry of a parsed cublas_tasks.yaml."""
    check_keys(df, (), required=("tolerance", "specs", "routines"), what="cublas_tasks.yaml")
    check_keys(df, ("tolerance",), required=TOLERANCE_KEYS, what="tolerance")
    for name, spec in df.data["specs"].items():
        check_keys(df, ("specs", name), required=SPEC_KEYS, what=f"spec {name!r}")
        for i, _ in enumerate(spec["workloads"] or ()):
            check_keys(df, ("specs", name, "workloads", i), required=WORKLOAD_KEYS, optional=WORKLOAD_OPTIONAL,
                       what=f"spec {name!r}: workload {i}")
    for name, routine in df.data["routines"].items():
        check_keys(df, ("routines", name), required=ROUTINE_KEYS, what=f"routine {name!r}")
        if routine["spec"] not in df.data["specs"]:
            raise SourceParseError(f"routine {name!r}: no spec {routine['spec']!r} under specs",
                                   at=df.where("routines", name, "spec"))
    missing = [n for n in curated if n not in df.data["routines"]]
    if missing:
        raise SourceParseError(f"curated routine(s) without an entry under routines: {', '.join(missing)}",
                               at=df.where("routines"))


@functools.cache
def curated_names() -> tuple[str, ...]:
    """The 50 curated routines (data/cublas_curated.yaml)."""
    return tuple(load_data("cublas_curated.yaml", top=list))


@functools.cache
def tasks_data() -> dict[str, Any]:
    """The benchmark specs of the curated routines (data/cublas_tasks.yaml), checked."""
    check_tasks(load_data_file("cublas_tasks.yaml"), curated_names())
    return load_data("cublas_tasks.yaml", top=dict)
