"""The real vLLM source distributions for tests: downloaded once (pip download) and cached.

Every test that reads vLLM's sources goes through here, so a clean machine fetches them (instead of
skipping) and a test skips only when the package index really cannot be reached.
"""

from __future__ import annotations

import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from kernelgenbench.errors import NetworkUnavailable
from kernelgenbench.extractors.vllm.resolve import (
    ResolvedSource,
    default_cache_dir,
    download_sdist,
    resolve_source,
)


def sdist_tarball(version: str) -> Path:
    """The cached sdist of a vLLM release (pip download when missing; skip only without an index)."""
    try:
        tarball, _ = download_sdist(version, default_cache_dir())
    except NetworkUnavailable as exc:
        pytest.skip(f"the package index is unreachable, so the vLLM {version} sdist cannot be fetched: {exc}")
    return tarball


def sdist_tree(version: str) -> ResolvedSource:
    """The unpacked sdist of a vLLM release, as the extractor resolves it."""
    return resolve_source(sdist_tarball(version), default_cache_dir())


def code_and_tests(rel: str) -> bool:
    """csrc/, the op wrappers and the Python tests: what the extractor reads."""
    return rel.startswith("csrc/") or rel == "vllm/_custom_ops.py" or (rel.startswith("tests/") and rel.endswith(".py"))


def unpack(version: str, dest: Path, keep: Callable[[str], bool]) -> Path:
    """The files of a release's sdist that `keep` accepts (paths relative to its root), under `dest`."""
    with tarfile.open(sdist_tarball(version)) as tar:
        for m in tar:
            rel = m.name.split("/", 1)[1] if "/" in m.name else ""
            if m.isfile() and keep(rel):
                m.name = rel
                tar.extract(m, dest, filter="data")
    return dest


def read_member(version: str, suffix: str) -> str:
    """The text of the one file of a release's sdist whose path ends with `suffix`."""
    with tarfile.open(sdist_tarball(version)) as tar:
        name = next(n for n in tar.getnames() if n.endswith(suffix))
        return tar.extractfile(name).read().decode()
