"""load_tasks: every record round-trips through the dataset; bad rows and bad arguments fail with one line."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from dataset_fixtures import all_records, write_by_source, write_jsonl

import kernelgenbench
from kernelgenbench.dataset.build import build_dataset
from kernelgenbench.dataset.record import Task, canonical_json
from kernelgenbench.dataset.rows import record_to_row, row_to_record
from kernelgenbench.errors import DatasetError


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("load")
    build_dataset(write_by_source(tmp / "records", all_records()), tmp / "ds")
    return tmp / "ds"


@pytest.mark.parametrize("record", all_records(), ids=lambda r: r["id"])
def test_row_conversion_is_lossless(record: dict) -> None:
    assert canonical_json(row_to_record(record_to_row(record))) == canonical_json(record)


def test_every_schema_field_has_a_column() -> None:
    # A field added to the schema must get a column, or rows would lose it.
    from kernelgenbench.dataset.rows import DERIVED_COLUMNS, FEATURES, OPTIONAL_FIELDS
    from kernelgenbench.dataset.schema import task_schema

    assert set(FEATURES) - set(DERIVED_COLUMNS) == set(task_schema()["properties"])
    # Rows rebuild every field: required ones always, optional ones (a null column) exactly when present.
    required = set(task_schema()["required"])
    assert required | set(OPTIONAL_FIELDS) == set(task_schema()["properties"]) and not required & set(OPTIONAL_FIELDS)


def test_a_field_without_a_column_is_an_error() -> None:
    record = dict(all_records()[0], extra=1)
    with pytest.raises(DatasetError, match=r"record aten/add.Tensor: field\(s\) \['extra'\] have no dataset column"):
        record_to_row(record)


def test_load_tasks_round_trips_every_record(built: Path) -> None:
    originals = {r["id"]: r for r in all_records()}
    seen: set[str] = set()
    for config in ("ms", "mc", "aten", "vllm", "cublas", "aten-all"):
        tasks = kernelgenbench.load_tasks(built, config=config)
        assert all(isinstance(t, Task) for t in tasks)
        for t in tasks:
            assert t.to_dict() == originals[t.id]
            assert canonical_json(t.to_dict()) == canonical_json(originals[t.id])
            seen.add(t.id)
    # every record with workloads or a curated set is in some config; empty_like is in none
    assert seen == set(originals) - {"aten/empty_like"}


def test_typed_view_of_a_loaded_task(built: Path) -> None:
    (task,) = kernelgenbench.load_tasks(str(built), config="vllm")
    assert task.id == "vllm/rms_norm" and task.inputs is not None and task.inputs.function == "rms_norm_inputs"
    assert [p.name for p in task.mutable_params] == ["out"]
    assert task.tolerance["bfloat16"].rtol == 1.6e-2
    assert [w.id for w in task.performance_workloads] == ["p0"]


def test_ids_select_tasks_and_only_they_are_validated(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "ds"
    shutil.copytree(built, copy)
    # break a row that is not asked for: selecting another id must not trip over it
    _rewrite(copy / "ms" / "test-00000-of-00001.parquet", "tolerance",
             lambda v: '{"float32": {"atol": -1, "rtol": 0}}' if '"bfloat16"' in v else v)
    got = kernelgenbench.load_tasks(copy, config="ms", ids=["aten/add.out", "aten/nope"])
    assert [t.id for t in got] == ["aten/add.out"]
    with pytest.raises(DatasetError, match="task vllm/rms_norm: at tolerance/float32/atol"):
        kernelgenbench.load_tasks(copy, config="ms")
    path = write_jsonl(tmp_path / "r.jsonl", all_records())
    assert [t.id for t in kernelgenbench.load_tasks(path, config=None, ids={"vllm/rms_norm"})] == ["vllm/rms_norm"]


def test_load_tasks_reads_a_jsonl_with_the_config_rule(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", all_records())
    assert [t.id for t in kernelgenbench.load_tasks(path, config="mc")] == ["aten/add.Tensor"]
    assert len(kernelgenbench.load_tasks(path, config=None)) == 6


def test_unknown_config_and_split_are_one_line_errors(built: Path) -> None:
    with pytest.raises(DatasetError, match=r"config 'nope' split 'test': BuilderConfig 'nope' not found\. Available: "):
        kernelgenbench.load_tasks(built, config="nope")
    with pytest.raises(DatasetError, match=r"Unknown split \"train\"\. Should be one of \['test'\]"):
        kernelgenbench.load_tasks(built, config="ms", split="train")
    with pytest.raises(DatasetError, match="no such dataset folder"):
        kernelgenbench.load_tasks(built / "missing", config="ms")
    with pytest.raises(DatasetError, match="unknown config 'nope'; the configs are ms, mc, aten, vllm, cublas, aten-all"):
        kernelgenbench.load_tasks(write_jsonl(built.parent / "r.jsonl", all_records()), config="nope")


def _rewrite(parquet: Path, column: str, fn) -> None:
    table = pq.read_table(parquet)
    values = [fn(v) for v in table.column(column).to_pylist()]
    table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, pa.string()))
    pq.write_table(table, parquet)


def test_a_row_that_fails_validation_names_the_task(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "ds"
    shutil.copytree(built, copy)
    _rewrite(copy / "vllm" / "test-00000-of-00001.parquet", "tolerance", lambda v: '{"bfloat16": {"atol": -1, "rtol": 0}}')
    with pytest.raises(DatasetError, match=r"task vllm/rms_norm: at tolerance/bfloat16/atol: -1 is less than the minimum of 0"):
        kernelgenbench.load_tasks(copy, config="vllm")


def test_a_row_altered_but_still_valid_fails_its_content_hash(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "ds"
    shutil.copytree(built, copy)
    _rewrite(copy / "cublas" / "test-00000-of-00001.parquet", "tolerance", lambda v: '{"float32": {"atol": 1, "rtol": 1}}')
    with pytest.raises(DatasetError, match="task cublas/cublasSaxpy_v2: content_hash column does not match the row"):
        kernelgenbench.load_tasks(copy, config="cublas")


def test_two_folders_of_the_same_name_load_their_own_rows(tmp_path: Path) -> None:
    # datasets' own cache of a local folder is keyed by the folder's name; load_tasks must not mix them up.
    recs = all_records()
    build_dataset([write_jsonl(tmp_path / "a.jsonl", recs)], tmp_path / "a" / "ds")
    build_dataset([write_jsonl(tmp_path / "b.jsonl", recs[:1])], tmp_path / "b" / "ds")
    assert len(kernelgenbench.load_tasks(tmp_path / "a" / "ds", config="aten-all")) == 3
    assert len(kernelgenbench.load_tasks(tmp_path / "b" / "ds", config="aten-all")) == 1
    build_dataset([write_jsonl(tmp_path / "c.jsonl", recs[1:3])], tmp_path / "a" / "ds")
    assert [t.id for t in kernelgenbench.load_tasks(tmp_path / "a" / "ds", config="aten-all")] == [
        "aten/add.out", "aten/mul.Tensor"]


def test_a_hub_id_offline_is_a_network_error() -> None:
    import os
    import subprocess
    import sys

    code = ("import kernelgenbench\n"
            "from kernelgenbench.errors import NetworkUnavailable\n"
            "try:\n    kernelgenbench.load_tasks('org/name')\n"
            "except NetworkUnavailable as exc:\n    print(exc)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")} | {"HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("org/name: cannot reach the Hub (")
    assert proc.stdout.rstrip().endswith("pass a local dataset folder, or load it once online so that it is cached")
