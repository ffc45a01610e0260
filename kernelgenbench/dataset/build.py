"""Build the Hub-layout dataset folder (parquet per config, README.md card, manifest.json) from records.

The build validates every record first and writes nothing unless all are valid; it writes into a
temporary folder beside the output and renames it into place at the end, so a failed or interrupted
build never leaves a partial dataset. Rows are sorted by id and written with fixed parquet options, and
nothing time-dependent is recorded, so equal inputs give byte-identical folders.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from kernelgenbench import __version__
from kernelgenbench.dataset.card import card_context, check_front_matter, default_card_template, render_card
from kernelgenbench.dataset.configs import SPLIT, DatasetConfig, dataset_configs
from kernelgenbench.dataset.jsonl import read_jsonl
from kernelgenbench.dataset.manifest import MANIFEST_NAME, ConfigFile, manifest
from kernelgenbench.dataset.rows import FEATURES, record_to_row
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.errors import BuildFailed, DatasetError

# Fixed writer options: a change of any of these changes the bytes of every build.
_PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 9,
    "row_group_size": 256,
    "use_dictionary": True,
    "write_statistics": True,
    "version": "2.6",
    "data_page_version": "1.0",
}


@dataclass(frozen=True)
class BuildResult:
    """What a build wrote: the folder, records read and published, each config's file, the configs left out."""

    out: Path
    records: int
    published: int
    files: tuple[ConfigFile, ...]
    omitted: Mapping[str, str]

    @property
    def unpublished(self) -> int:
        """Valid records that belong to no config (neither curated nor with a workload)."""
        return self.records - self.published

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line per config left out."""
        return tuple(f"config {name} omitted: {why}" for name, why in self.omitted.items())


def collect_records(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Read and validate every record of the JSON Lines inputs, sorted by id; BuildFailed lists every problem."""
    read = read_jsonl(paths)
    problems = list(read.problems)
    first_seen: dict[str, str] = {}
    for located in read.records:
        rid = str(located.record.get("id", "<no id>"))
        errors = record_errors(located.record)
        if errors:
            problems.append(f"{located.where}: record {rid}: {errors[0]}")
        elif rid in first_seen:
            problems.append(f"{located.where}: record {rid}: duplicate id (first at {first_seen[rid]})")
        else:
            first_seen[rid] = located.where
    if problems:
        raise BuildFailed(problems)
    if not read.records:
        raise BuildFailed(["the inputs hold no records; pass the JSON Lines files `kgb-extract` wrote"])
    return sorted((located.record for located in read.records), key=lambda r: r["id"])


def sha256_file(path: Path) -> str:
    """sha256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_parquet(records: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Write the records' rows, in the given order, as one parquet file with the dataset's typed schema."""
    table = pa.Table.from_pylist([record_to_row(r) for r in records], schema=FEATURES.arrow_schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, **_PARQUET_OPTIONS)


def config_path(config: DatasetConfig) -> str:
    """Where a config's test split lives in the folder (the Hub's `<config>/<split>-00000-of-00001` naming)."""
    return f"{config.name}/{SPLIT}-00000-of-00001.parquet"


def write_dataset(
    records: Sequence[Mapping[str, Any]],
    folder: Path,
    *,
    card_template: Path,
    repo_id: str | None = None,
) -> BuildResult:
    """Write parquet files, manifest and card for already-validated records (sorted by id) into `folder`."""
    written: list[tuple[DatasetConfig, ConfigFile]] = []
    omitted: dict[str, str] = {}
    for config in dataset_configs():
        members = [r for r in records if config.contains(r)]
        if not members:
            omitted[config.name] = f"no input record matches ({config.rule})"
            continue
        rel = config_path(config)
        write_parquet(members, folder / rel)
        written.append((config, ConfigFile(config.name, SPLIT, rel, len(members), sha256_file(folder / rel))))
    if not written:
        raise DatasetError("no input record belongs to any config (none is curated or has a workload); nothing to write")
    files = tuple(f for _, f in written)
    # Manifest and card describe what the folder holds: records in no config are not part of it.
    published = [r for r in records if any(config.contains(r) for config, _ in written)]
    # The parquet bytes depend on the writer's version, so the manifest names it (equal versions, equal bytes).
    doc = manifest(published, files, omitted, {"kernelgenbench": __version__, "pyarrow": pa.__version__})
    (folder / MANIFEST_NAME).write_text(json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    context = card_context(published, written, omitted, builder_version=__version__,
                           **({"repo_id": repo_id} if repo_id else {}))
    card = render_card(card_template, context)
    check_front_matter(card, [config.name for config, _ in written])
    (folder / "README.md").write_text(card, encoding="utf-8")
    return BuildResult(folder, len(records), len(published), files, omitted)


def _check_out(out: Path) -> None:
    # Only a folder a previous build wrote (it has a manifest) or an empty one is replaced: `--out` pointing
    # at the wrong place must not delete someone's files.
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST_NAME).is_file())):
        raise DatasetError(f"{out}: exists and is not a kgb dataset folder (no {MANIFEST_NAME}); pick another --out")


def _replace_folder(tmp: Path, out: Path) -> None:
    if not out.exists():
        tmp.rename(out)
        return
    old = out.with_name(f".{out.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    out.rename(old)
    try:
        tmp.rename(out)
    except OSError:
        old.rename(out)  # put the previous dataset back rather than leave nothing
        raise
    shutil.rmtree(old)


def build_dataset(
    task_paths: Iterable[str | Path],
    out: str | Path,
    *,
    card_template: str | Path | None = None,
    repo_id: str | None = None,
) -> BuildResult:
    """Validate the records of the JSON Lines inputs and write the dataset folder `out`, all or nothing."""
    out = Path(out)
    template = Path(card_template) if card_template else default_card_template()
    _check_out(out)
    records = collect_records(task_paths)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; the dataset folder is meant to be read by others
    try:
        result = write_dataset(records, tmp, card_template=template, repo_id=repo_id)
        _replace_folder(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return BuildResult(out, result.records, result.published, result.files, result.omitted)
