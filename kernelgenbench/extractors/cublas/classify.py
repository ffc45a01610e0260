"""Name a cuBLAS routine's precision, BLAS family and level, and variant markers from its name."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from kernelgenbench.datafiles import load_data

# Variant suffixes, stripped from the end of the name in this order (cublasGemmStridedBatchedEx,
# cublasSgemm_v2_64, cublasCherk3mEx).
_SUFFIXES = ("_64", "_v2", "Ex", "StridedBatched", "GroupedBatched", "Batched", "Ex")
_TWO_LETTER = ("Sc", "Dz", "Cs", "Zd")
_LETTERS = ("S", "D", "C", "Z", "H")


@dataclass(frozen=True)
class Family:
    """BLAS semantics shared by a family's routines (data/cublas_families.yaml)."""

    name: str
    level: str
    category: str
    writes: tuple[tuple[str, str], ...]
    does: str


@dataclass(frozen=True)
class Classification:
    """What a routine's name says: precision letters, family, level, category, variant markers."""

    name: str
    precision: str
    family: str
    level: str
    category: str
    variants: tuple[str, ...]
    does: str

    @property
    def is_helper(self) -> bool:
        """Handles, streams, modes, logging: not a BLAS operation."""
        return self.level == "helper"


@functools.cache
def families_data() -> dict[str, Any]:
    """The parsed data/cublas_families.yaml."""
    return load_data("cublas_families.yaml", top=dict)


@functools.cache
def families() -> dict[str, Family]:
    """Every known BLAS family by name."""
    return {
        name: Family(name, str(f["level"]), f["category"], tuple(f.get("writes", {}).items()), f.get("does", ""))
        for name, f in families_data()["families"].items()
    }


def _strip_variants(rest: str) -> tuple[str, list[str]]:
    found: list[str] = []
    for suffix in _SUFFIXES:
        if rest.endswith(suffix) and len(rest) > len(suffix):
            rest = rest[: -len(suffix)]
            found.append(suffix)
    return rest, found[::-1]


def _family_of(word: str) -> str | None:
    known = families()
    for cand in (word, word[:1].lower() + word[1:], word.lower()):
        if cand in known:
            return cand
    return None


def classify(name: str) -> Classification:
    """Classify one routine by its name ('cublasSgemmStridedBatched_64' -> S, gemm, 3, StridedBatched/_64)."""
    rest = name.removeprefix("cublas")
    data = families_data()
    if any(rest.startswith(p) for p in data["helper_prefixes"]):
        return Classification(name, "", rest, "helper", "other", tuple(_strip_variants(rest)[1]), "")
    core, variants = _strip_variants(rest)
    if core.endswith("3m"):  # cublasCgemm3m, cublasCsyrk3mEx: the Gauss 3-multiplication variant
        core, variants = core[:-2], ["3m", *variants]
    for prefix in (*data["mixed_prefixes"], *_TWO_LETTER, *("I" + c.lower() for c in "SDCZ"), "I", *_LETTERS, ""):
        if not core.startswith(prefix):
            continue
        fam = _family_of(core[len(prefix):])
        if fam is None:
            continue
        precision = prefix[1:].upper() if prefix.startswith("I") and len(prefix) == 2 else prefix
        if not precision or precision == "I":
            precision = "mixed"  # cublasGemmEx, cublasAxpyEx: the types are arguments
        f = families()[fam]
        return Classification(name, precision, fam, f.level, f.category, tuple(variants), f.does)
    # An unknown family (a routine newer than the data file): keep it, say nothing about its semantics.
    return Classification(name, "", core, "extension", "other", tuple(variants), "")
