"""kgb build: configs, typed parquet, card, manifest, byte-identical rebuilds, all-or-nothing failures."""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
import yaml
from dataset_fixtures import all_records, rms_norm_record, saxpy_record, write_by_source, write_jsonl
from records import add_tensor_record

from kernelgenbench.dataset.build import build_dataset, collect_records
from kernelgenbench.dataset.record import content_hash
from kernelgenbench.errors import BuildFailed, DatasetError

EXPECTED = {
    "ms": ["aten/add.Tensor", "aten/add.out", "cublas/cublasSaxpy_v2", "vllm/rms_norm"],
    "mc": ["aten/add.Tensor"],
    "aten": ["aten/add.Tensor", "aten/add.out"],
    "vllm": ["vllm/rms_norm"],
    "cublas": ["cublas/cublasSaxpy_v2"],
    "aten-all": ["aten/add.Tensor", "aten/add.out", "aten/mul.Tensor"],
}


def _hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _front_matter(readme: Path) -> dict:
    text = readme.read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("build")
    files = write_by_source(tmp / "records", all_records())
    build_dataset(files, tmp / "ds")
    return tmp / "ds"


@pytest.mark.parametrize("config", sorted(EXPECTED))
def test_load_dataset_reads_each_config_offline(built: Path, config: str, tmp_path: Path) -> None:
    ds = datasets.load_dataset(str(built), config, split="test", cache_dir=str(tmp_path))
    assert ds["id"] == EXPECTED[config]


def test_ms_is_the_default_config(built: Path, tmp_path: Path) -> None:
    ds = datasets.load_dataset(str(built), split="test", cache_dir=str(tmp_path))
    assert ds["id"] == EXPECTED["ms"]


def test_columns_are_typed(built: Path, tmp_path: Path) -> None:
    ds = datasets.load_dataset(str(built), "ms", split="test", cache_dir=str(tmp_path))
    f = ds.features
    assert f["tags"] == datasets.List(datasets.Value("string"))
    assert f["provenance"]["line"] == datasets.Value("int64")
    assert f["reference"]["code"] == datasets.Value("string")
    assert f["returns"].feature["alias"] == datasets.Value("string")
    row = ds[ds["id"].index("vllm/rms_norm")]
    assert json.loads(row["workloads"])[0]["params"] == {"tokens": 7, "hidden": 768, "dtype": "bfloat16"}
    assert row["inputs"]["function"] == "rms_norm_inputs"
    assert row["num_workloads"] == 2
    assert row["content_hash"] == content_hash(rms_norm_record())


def test_card_front_matter_lists_every_config_with_its_file(built: Path) -> None:
    meta = _front_matter(built / "README.md")
    assert [c["config_name"] for c in meta["configs"]] == ["ms", "mc", "aten", "vllm", "cublas", "aten-all"]
    assert meta["configs"][0]["default"] is True
    assert meta["configs"][0]["data_files"] == [{"split": "test", "path": "ms/test-00000-of-00001.parquet"}]
    for c in meta["configs"]:
        assert (built / c["data_files"][0]["path"]).is_file()
    assert meta["license"] == "apache-2.0" and meta["size_categories"] == ["n<1K"]
    assert meta["pretty_name"] and meta["task_categories"] and "triton" in meta["tags"]


def test_card_body_has_counts_provenance_and_columns(built: Path) -> None:
    body = (built / "README.md").read_text()
    assert "| `ms` (default) | 4 |" in body
    # add.Tensor and add.out are two rows of one operator
    assert ("config `ms` holds 3 operators as 4 tasks: 1 ATen operators (2 tasks: every overload its own row), "
            "1 vLLM ops (1 tasks: one per registered op a curated op stands for) and 1 cuBLAS routines.") in body
    assert "| blas1 | 0 | 0 | 1 | 1 |" in body  # category table: aten, vllm, cublas, total
    assert "| elementwise | 2 | 0 | 0 | 2 |" in body
    assert "| vllm | 0.13.0 | 72506c98349d6bcd32b4e33eec7b5513453c1502 | 1 |" in body
    assert "| cublas | 12.4.5.8 | — | 1 |" in body and "| pytorch | 2.13.0 | — | 3 |" in body
    assert "| `workloads` | JSON text |" in body and "| `tags` | list of string |" in body
    assert 'load_dataset("ORG/kernelgenbench", "ms", split="test")' in body
    assert "kernelgenbench.load_tasks(" in body and "kgb eval" in body and "KernelGenBench" in body


def test_manifest_has_hashes_files_and_upstreams(built: Path) -> None:
    doc = json.loads((built / "manifest.json").read_text())
    # empty_like is in no config (not curated, no workload), so the folder and its manifest do not hold it
    assert doc["tasks"] == {r["id"]: content_hash(r) for r in all_records() if r["id"] != "aten/empty_like"}
    assert doc["configs"]["mc"]["rows"] == 1
    for entry in doc["configs"].values():
        assert hashlib.sha256((built / entry["path"]).read_bytes()).hexdigest() == entry["sha256"]
    assert [(u["upstream"], u["version"], u["commit"], u["records"]) for u in doc["upstreams"]] == [
        ("cublas", "12.4.5.8", None, 1), ("pytorch", "2.13.0", None, 3),
        ("vllm", "0.13.0", "72506c98349d6bcd32b4e33eec7b5513453c1502", 1)]
    assert doc["omitted_configs"] == {}
    assert set(doc["builder"]) == {"kernelgenbench", "pyarrow"}  # the parquet bytes depend on both


def test_rebuild_is_byte_identical_whatever_the_input_order(built: Path, tmp_path: Path) -> None:
    # Same records, reversed and in one file instead of three: the folder must not change by a byte.
    one = write_jsonl(tmp_path / "all.jsonl", list(reversed(all_records())))
    build_dataset([one], tmp_path / "again")
    assert _hashes(tmp_path / "again") == _hashes(built)
    assert len(_hashes(built)) == 8  # six parquet files, README.md, manifest.json


def test_parquet_has_no_time_dependent_metadata(built: Path) -> None:
    meta = pq.read_metadata(built / "ms" / "test-00000-of-00001.parquet")
    assert meta.num_rows == 4
    assert set(meta.metadata) == {b"huggingface", b"ARROW:schema"}


def test_invalid_records_fail_with_id_and_first_error_and_write_nothing(tmp_path: Path) -> None:
    broken = rms_norm_record()
    del broken["category"]
    bad_state = saxpy_record()
    bad_state["workload_status"]["state"] = "partial"
    path = write_jsonl(tmp_path / "in.jsonl", [add_tensor_record(), broken, bad_state])
    with pytest.raises(BuildFailed) as info:
        build_dataset([path], tmp_path / "ds")
    assert info.value.problems == (
        f"{path}:2: record vllm/rms_norm: at <record>: 'category' is a required property",
        f"{path}:3: record cublas/cublasSaxpy_v2: at workload_status/state: is 'partial' but the workloads make it 'ok'",
    )
    assert str(info.value).startswith("2 problem(s) in the input records, nothing was written; first: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # no dataset, no temporary folder


def test_duplicate_ids_and_bad_lines_are_problems(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(add_tensor_record()) + "\n\n{not json\n[1]\n" + json.dumps(add_tensor_record()) + "\n")
    with pytest.raises(BuildFailed) as info:
        collect_records([path])
    assert info.value.problems == (
        f"{path}:3: not JSON (Expecting property name enclosed in double quotes at column 2); fix or drop the line",
        f"{path}:4: a record must be a JSON object, got list",
        f"{path}:5: record aten/add.Tensor: duplicate id (first at {path}:1)",
    )


def test_failed_rebuild_keeps_the_previous_dataset(built: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    build_dataset([write_jsonl(tmp_path / "ok.jsonl", all_records())], out)
    before = _hashes(out)
    broken = add_tensor_record()
    broken["source"] = "triton"
    with pytest.raises(BuildFailed, match="record aten/add.Tensor: at source: 'triton' is not one of"):
        build_dataset([write_jsonl(tmp_path / "bad.jsonl", [broken])], out)
    assert _hashes(out) == before == _hashes(built)


def test_rebuild_replaces_a_previous_build_but_refuses_other_folders(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    build_dataset([write_jsonl(tmp_path / "a.jsonl", all_records())], out)
    build_dataset([write_jsonl(tmp_path / "b.jsonl", [add_tensor_record()])], out)
    assert json.loads((out / "manifest.json").read_text())["tasks"] == {"aten/add.Tensor": content_hash(add_tensor_record())}
    assert not (out / "vllm").exists()
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(DatasetError, match="is not a kgb dataset folder"):
        build_dataset([tmp_path / "b.jsonl"], other)
    assert (other / "notes.txt").read_text() == "keep me"


def test_empty_configs_are_omitted_with_a_warning_and_in_the_card(tmp_path: Path) -> None:
    recs = [r for r in all_records() if r["source"] != "cublas"]
    result = build_dataset([write_jsonl(tmp_path / "in.jsonl", recs)], tmp_path / "ds")
    assert result.warnings == ("config cublas omitted: no input record matches (source is `cublas` and `ms` in benchmarks)",)
    meta = _front_matter(tmp_path / "ds" / "README.md")
    assert "cublas" not in [c["config_name"] for c in meta["configs"]]
    assert "- `cublas`: no input record matches" in (tmp_path / "ds" / "README.md").read_text()
    assert json.loads((tmp_path / "ds" / "manifest.json").read_text())["omitted_configs"] == dict(
        [result.warnings[0].removeprefix("config ").split(" omitted: ")])


def test_cli_build_reports_each_bad_record_and_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from kernelgenbench.cli.main import main

    broken = rms_norm_record()
    broken["workloads"][0]["purpose"] = "speed"
    path = write_jsonl(tmp_path / "in.jsonl", [broken, add_tensor_record()])
    monkeypatch.setattr(sys, "argv", ["kgb", "build", "--tasks", str(path), "--out", str(tmp_path / "ds")])
    with pytest.raises(SystemExit) as info:
        main()
    err = capsys.readouterr().err.splitlines()
    assert info.value.code == 2
    assert err[0] == f"{path}:1: record vllm/rms_norm: at workloads/0/purpose: 'speed' is not one of ['correctness', 'performance']"
    assert err[1].startswith("kgb: error: 1 problem(s) in the input records, nothing was written")
    assert not (tmp_path / "ds").exists()


def test_cli_build_takes_several_files_after_one_tasks_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    from kernelgenbench.cli.main import main

    files = write_by_source(tmp_path / "records", all_records())
    monkeypatch.setattr(sys, "argv", ["kgb", "build", "--tasks", *map(str, files), "--out", str(tmp_path / "ds")])
    with pytest.raises(SystemExit) as info:
        main()
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert f"wrote {tmp_path / 'ds'}: 5 of 6 records published (1 in no config: neither curated nor with a workload)" in out
    assert "  aten-all       3 rows  aten-all/test-00000-of-00001.parquet" in out


def test_a_template_that_breaks_the_front_matter_fails_the_build(tmp_path: Path) -> None:
    template = tmp_path / "card.md.j2"
    template.write_text("# {{ pretty_name }}\n")
    with pytest.raises(DatasetError, match="the rendered card does not start with YAML front matter"):
        build_dataset([write_jsonl(tmp_path / "in.jsonl", all_records())], tmp_path / "ds", card_template=template)
    template.write_text("---\n{{ front_matter }}---\n{{ nope }}\n")
    with pytest.raises(DatasetError, match="cannot render the card template: 'nope' is undefined"):
        build_dataset([tmp_path / "in.jsonl"], tmp_path / "ds", card_template=template)
    assert not (tmp_path / "ds").exists()


def test_card_counts_the_registered_ops_of_one_curated_vllm_name_once(tmp_path: Path) -> None:
    # scaled_fp8_quant stands for three registered ops: three tasks, one operator (as the curated list counts it)
    base = rms_norm_record()
    records = []
    for op in ("static_scaled_fp8_quant", "dynamic_scaled_fp8_quant"):
        r = copy.deepcopy(base)
        r["id"], r["name"] = f"vllm/{op}", op
        r["details"]["vllm"]["curated_name"] = "scaled_fp8_quant"
        records.append(r)
    build_dataset([write_jsonl(tmp_path / "r.jsonl", records)], tmp_path / "ds")
    body = (tmp_path / "ds" / "README.md").read_text()
    assert "holds 1 operators as 2 tasks" in body and "1 vLLM ops (2 tasks" in body


def test_readme_operator_counts_come_from_the_curated_lists() -> None:
    import re

    from kernelgenbench.dataset.configs import curated_operator_counts

    counts = curated_operator_counts()
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    (ms,) = re.findall(r"`ms` \((\d+) operators", readme)
    assert int(ms) == sum(counts.values())
    assert f"the {counts['aten']} curated ops" in readme
    assert f"Only the {counts['cublas']} curated routines" in (
        Path(__file__).parent.parent / "kernelgenbench" / "cli" / "extract_cublas.py").read_text()
