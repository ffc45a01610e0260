"""Load task records from a published dataset (a Hub repo id or a local folder) or a JSON Lines file."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.configs import SPLIT, default_config, get_config
from kernelgenbench.dataset.jsonl import read_jsonl
from kernelgenbench.dataset.record import Task, content_hash
from kernelgenbench.dataset.rows import row_to_record
from kernelgenbench.errors import DatasetError, NetworkUnavailable, RecordInvalid


def _is_local(target: str) -> bool:
    # A Hub id is `name` or `org/name`; anything that exists, or that is spelled like a path, is local.
    return Path(target).exists() or target.startswith((".", "/", "~")) or target.count("/") > 1


def _rows_from_dataset(target: str, config: str, split: str, revision: str | None) -> Any:
    import datasets
    from datasets.exceptions import DatasetGenerationError, DatasetNotFoundError
    from pyarrow import ArrowException

    if _is_local(target) and not Path(target).expanduser().is_dir():
        raise DatasetError(f"{target}: no such dataset folder; pass a folder `kgb build` wrote, a JSONL file or a Hub id")
    try:
        if _is_local(target):
            # datasets keys its cache of a local folder by the folder's name and config, so a rebuilt or
            # different folder of the same name can come back stale: read local folders through a fresh cache.
            # Preparing that private copy is our doing, not a download, so its progress bar is not shown.
            quiet = datasets.are_progress_bars_disabled()
            datasets.disable_progress_bars()
            try:
                with tempfile.TemporaryDirectory(prefix="kgb-load-") as cache:
                    return datasets.load_dataset(str(Path(target).expanduser()), config, split=split,
                                                 cache_dir=cache, keep_in_memory=True)
            finally:
                if not quiet:
                    datasets.enable_progress_bars()
        return datasets.load_dataset(target, config, split=split, revision=revision)
    except DatasetNotFoundError as exc:
        raise DatasetError(f"{target}: dataset not found (or not accessible with your token): {exc}") from exc
    except ConnectionError as exc:
        raise NetworkUnavailable(f"{target}: cannot reach the Hub ({exc}); pass a local dataset folder, "
                                 "or load it once online so that it is cached") from exc
    except (DatasetGenerationError, ArrowException, OSError) as exc:
        # A damaged parquet file (a torn download, a corrupted page): datasets wraps pyarrow's error.
        cause = exc.__cause__ or exc
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[0][:300]
        raise DatasetError(f"{target}: config {config!r}: a data file cannot be read ({first}); rebuild or "
                           "re-download the dataset") from exc
    except ValueError as exc:
        # datasets reports an unknown config or split as a ValueError naming the available ones.
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatasetError(f"{target}: config {config!r} split {split!r}: {first}") from exc


def _records_from_jsonl(path: Path, config: str | None) -> list[tuple[str, dict[str, Any]]]:
    read = read_jsonl([path])
    if read.problems:
        raise DatasetError(read.problems[0])
    wanted = get_config(config) if config else None
    return [(r.where, r.record) for r in read.records if wanted is None or wanted.contains(r.record)]


def _task(where: str, record: Mapping[str, Any], stored_hash: str | None) -> Task:
    rid = record.get("id", "<no id>")
    try:
        task = Task.from_dict(record)
    except RecordInvalid as exc:
        raise DatasetError(f"{where}: task {rid}: {exc.error}") from exc
    if stored_hash is not None and stored_hash != content_hash(record):
        raise DatasetError(f"{where}: task {rid}: content_hash column does not match the row; the file was altered")
    return task


def load_tasks(
    path_or_repo_id: str | Path,
    config: str | None = None,
    split: str = SPLIT,
    revision: str | None = None,
    *,
    ids: Iterable[str] | None = None,
) -> list[Task]:
    """The validated tasks of one config and split, from a Hub id, a dataset folder, or a JSONL of records.

    Every row is rebuilt into its record, validated against the schema and checked against its content
    hash; the first bad row raises DatasetError naming the task id and the first error (no row is skipped
    silently). `ids` keeps only those tasks (only they are validated; ids not present are simply absent).
    `config` None means: every record of a JSONL file, the default config (`ms`) of a dataset folder or Hub
    id -- the same rule in `evaluate()`, `kgb eval` and `kgb prompt`. A config given for a JSONL file filters
    its records by the config's membership rule; split/revision do not apply to a JSONL file, revision not
    to a local folder.
    """
    target = str(path_or_repo_id)
    wanted = None if ids is None else set(ids)
    path = Path(target).expanduser()
    if path.is_file():
        return [_task(where, record, None) for where, record in _records_from_jsonl(path, config)
                if wanted is None or record.get("id") in wanted]
    if config is None:
        config = default_config().name
    ds = _rows_from_dataset(target, config, split, revision)
    if wanted is not None:
        ds = ds.select([i for i, rid in enumerate(ds["id"]) if rid in wanted])
    return [_task(f"{target} [{config}/{split}]", row_to_record(row), row.get("content_hash")) for row in ds]
