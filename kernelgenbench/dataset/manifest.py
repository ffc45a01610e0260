"""The dataset manifest: each task's content hash, the configs' files, and the upstream versions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kernelgenbench.dataset.record import content_hash

MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class Upstream:
    """One upstream version the records were extracted from, and how many records came from it."""

    upstream: str
    version: str
    commit: str | None
    records: int


@dataclass(frozen=True)
class ConfigFile:
    """One written config: its parquet file, row count and the file's sha256."""

    name: str
    split: str
    path: str
    rows: int
    sha256: str


def upstreams(records: Sequence[Mapping[str, Any]]) -> tuple[Upstream, ...]:
    """The distinct (upstream, version, commit) of the records' provenance, sorted, with record counts."""
    counts = Counter(
        (r["provenance"]["upstream"], r["provenance"]["version"], r["provenance"]["commit"] or "") for r in records
    )
    return tuple(Upstream(u, v, c or None, n) for (u, v, c), n in sorted(counts.items()))


def manifest(
    records: Sequence[Mapping[str, Any]],
    files: Sequence[ConfigFile],
    omitted: Mapping[str, str],
    builder: Mapping[str, str],
) -> dict[str, Any]:
    """The manifest document (JSON-ready; no timestamps, so equal inputs give equal manifests)."""
    return {
        "manifest_version": MANIFEST_VERSION,
        "builder": dict(sorted(builder.items())),
        "record_versions": sorted({r["record_version"] for r in records}),
        "upstreams": [
            {"upstream": u.upstream, "version": u.version, "commit": u.commit, "records": u.records}
            for u in upstreams(records)
        ],
        "configs": {
            f.name: {"split": f.split, "path": f.path, "rows": f.rows, "sha256": f.sha256} for f in files
        },
        "omitted_configs": dict(sorted(omitted.items())),
        "tasks": {r["id"]: content_hash(r) for r in sorted(records, key=lambda r: r["id"])},
    }
