"""The real vLLM source distributions for tests: downloaded once (pip download) and cached."""

from __future__ import annotations

import pytest

from kernelgenbench.errors import NetworkUnavailable
from kernelgenbench.extractors.vllm.resolve import (
    ResolvedSource,
    default_cache_dir,
    download_sdist,
    resolve_source,
)


def sdist_tree(version: str) -> ResolvedSource:
    """The unpacked sdist of a vLLM release (pip download when not cached; skip only without an index)."""
    cache = default_cache_dir()
    try:
        tarball, _ = download_sdist(version, cache)
    except NetworkUnavailable as exc:
        pytest.skip(f"the package index is unreachable, so the vLLM {version} sdist cannot be fetched: {exc}")
    return resolve_source(tarball, cache)
