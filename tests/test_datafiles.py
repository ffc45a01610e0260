"""The shared data-file loader and Location/context: bad YAML and misspelt curated keys name file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelgenbench.datafiles import check_keys, load_data, load_data_file, parse_yaml, read_yaml
from kernelgenbench.errors import KgbError, SourceParseError
from kernelgenbench.extractors.aten import data_files as aten_data
from kernelgenbench.extractors.cublas.tasks_file import check_tasks, curated_names
from kernelgenbench.extractors.vllm.curated import parse_curated
from kernelgenbench.locations import Location, context

DATA = Path(__file__).resolve().parents[1] / "kernelgenbench" / "data"


def test_location_prints_the_parts_it_has() -> None:
    assert str(Location("a.yaml")) == "a.yaml"
    assert str(Location("a.yaml", 3)) == "a.yaml:3"
    assert str(Location("a.yaml", 3, 7)) == "a.yaml:3:7"
    assert Location("a.yaml", 3).at(9) == Location("a.yaml", 9)


def test_context_places_an_error_once_the_innermost_place_wins() -> None:
    with pytest.raises(SourceParseError) as info:
        with context(Location("f.yaml")):
            with context(lambda: Location("f.yaml", 12)):
                raise SourceParseError("unknown key 'x'")
    assert str(info.value) == "f.yaml:12: unknown key 'x'"
    assert (info.value.file, info.value.line, info.value.reason) == ("f.yaml", 12, "unknown key 'x'")
    with pytest.raises(ValueError, match=r"^g\.h:4: boom$"):
        with context(Location("other.h")), context(Location("g.h", 4)):
            raise ValueError("boom")
    # a raise that names its own place keeps it
    with pytest.raises(SourceParseError, match=r"^x\.h:2: bad$"):
        with context(Location("y.h", 9)):
            raise SourceParseError("bad", at=Location("x.h", 2))


def test_broken_yaml_names_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text("ops:\n  a: [1, 2\n  b: 3\n")
    with pytest.raises(SourceParseError, match=rf"^{bad}:3: not valid YAML: ") as info:
        read_yaml(bad)
    assert isinstance(info.value, KgbError) and info.value.line == 3


def test_duplicate_key_is_an_error_at_its_line() -> None:
    with pytest.raises(SourceParseError, match=r"^d\.yaml:3: not valid YAML: .*duplicate key 'a'"):
        parse_yaml("top:\n  a: 1\n  a: 2\n", "d.yaml")


def test_lines_of_keys_and_items() -> None:
    df = parse_yaml("ops:\n  rms:\n    schema: s\n    workloads:\n      - {n: 1}\n      - {n: 2}\n", "f.yaml")
    assert df.where("ops", "rms", "schema") == Location("f.yaml", 3)
    assert df.where("ops", "rms", "workloads", 1) == Location("f.yaml", 6)
    assert df.where("ops", "rms", "absent") == Location("f.yaml", 2)  # nearest known ancestor


def test_check_keys_names_the_unknown_and_the_missing_key() -> None:
    df = parse_yaml("e:\n  schema: s\n  grid_mpa: {}\n", "f.yaml")
    with pytest.raises(SourceParseError, match=r"^f\.yaml:3: entry: unknown key 'grid_mpa' \(known: schema, grid_map\)$"):
        check_keys(df, ("e",), required=("schema",), optional=("grid_map",))
    with pytest.raises(SourceParseError, match=r"^f\.yaml:1: entry: missing module$"):
        check_keys(df, ("e",), required=("schema", "module"), optional=("grid_mpa",))


def test_every_packaged_yaml_file_loads_with_its_lines() -> None:
    for path in sorted(DATA.glob("*.yaml")):
        df = load_data_file(path.name)
        assert df.file == f"kernelgenbench/data/{path.name}" and len(df.lines) > 1
    copy = load_data("vllm_builds.yaml")
    copy["prefixes"].clear()  # callers get their own copy: the cached parse is untouched
    assert load_data("vllm_builds.yaml")["prefixes"]


def test_a_misspelt_key_in_a_curated_vllm_entry_is_reported_not_dropped(tmp_path: Path) -> None:
    text = (DATA / "vllm_curated_core.yaml").read_text()
    assert "\n    grid_map:" in text
    bad = tmp_path / "vllm_curated_core.yaml"
    bad.write_text(text.replace("\n    grid_map:", "\n    grid_mapp:", 1))
    line = next(i for i, x in enumerate(bad.read_text().splitlines(), 1) if "grid_mapp:" in x)
    good, problems = parse_curated(read_yaml(Path(DATA / "vllm_curated_core.yaml")))
    entries, problems = parse_curated(read_yaml(bad))
    assert len(problems) == 1 and len(entries) == len(good) - 1
    assert problems[0].startswith(f"{bad}:{line}: entry ") and "unknown key 'grid_mapp'" in problems[0]


def test_a_missing_key_in_a_curated_vllm_entry_names_the_entry(tmp_path: Path) -> None:
    text = (DATA / "vllm_curated_core.yaml").read_text()
    bad = tmp_path / "vllm_curated_core.yaml"
    bad.write_text(text.replace("\n    semantics: deterministic", "", 1))
    _, problems = parse_curated(read_yaml(bad))
    assert len(problems) == 1 and ": missing semantics" in problems[0]
    assert problems[0].startswith(f"{bad}:")


def test_a_misspelt_key_in_an_aten_compare_rule(tmp_path: Path) -> None:
    bad = tmp_path / "aten_compare.yaml"
    bad.write_text((DATA / "aten_compare.yaml").read_text().replace("      unless: stable", "      unles: stable", 1))
    aten_data.check("compare", read_yaml(DATA / "aten_compare.yaml"))
    with pytest.raises(SourceParseError, match=rf"^{bad}:\d+: compare rule of 'sort': unknown key 'unles'"):
        aten_data.check("compare", read_yaml(bad))


def test_a_misspelt_key_in_an_aten_cost_entry(tmp_path: Path) -> None:
    bad = tmp_path / "aten_costs.yaml"
    bad.write_text("default: {flops: out_numel}\ncategories:\n  copy: {flop: '0'}\n")
    with pytest.raises(SourceParseError, match=rf"^{bad}:3: cost entry 'copy': unknown key 'flop'"):
        aten_data.check("costs", read_yaml(bad))


def test_a_misspelt_key_in_a_cublas_task_workload(tmp_path: Path) -> None:
    text = (DATA / "cublas_tasks.yaml").read_text()
    check_tasks(read_yaml(DATA / "cublas_tasks.yaml"), curated_names())
    bad = tmp_path / "cublas_tasks.yaml"
    bad.write_text(text.replace("origin:", "orign:", 1))
    with pytest.raises(SourceParseError, match=rf"^{bad}:\d+: spec '\w+': workload 0: unknown key 'orign'"):
        check_tasks(read_yaml(bad), curated_names())
    bad.write_text(text.replace("cublasCcopy_v2: {spec:", "cublasCcopy_v2: {spce:", 1))
    with pytest.raises(SourceParseError, match=rf"^{bad}:\d+: routine 'cublasCcopy_v2': unknown key 'spce'"):
        check_tasks(read_yaml(bad), curated_names())
