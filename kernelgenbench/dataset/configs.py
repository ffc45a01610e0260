"""The dataset's configs (ms, mc, aten, vllm, cublas, aten-all) and which records belong to each."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kernelgenbench.datafiles import load_data
from kernelgenbench.errors import DatasetError
from kernelgenbench.sources import sources

SPLIT = "test"


@dataclass(frozen=True)
class DatasetConfig:
    """One config of the dataset: a name, what it is, and the record fields that decide membership."""

    name: str
    description: str
    default: bool = False
    source: str | None = None
    benchmark: str | None = None
    with_workloads: bool = False

    def contains(self, record: Mapping[str, Any]) -> bool:
        """Whether the record belongs to this config."""
        return (
            (self.source is None or record["source"] == self.source)
            and (self.benchmark is None or self.benchmark in record["benchmarks"])
            and (not self.with_workloads or len(record["workloads"]) > 0)
        )

    @property
    def rule(self) -> str:
        """The membership rule in words, for the card."""
        parts = [f"source is `{self.source}`"] if self.source else []
        parts += [f"`{self.benchmark}` in benchmarks"] if self.benchmark else []
        parts += ["at least one workload"] if self.with_workloads else []
        return " and ".join(parts) or "every record"


@functools.cache
def dataset_configs() -> tuple[DatasetConfig, ...]:
    """The configs, in card order, read from kernelgenbench/data/dataset_configs.yaml."""
    configs = []
    for entry in load_data("dataset_configs.yaml", top=list):
        where = dict(entry.get("where", {}))
        configs.append(
            DatasetConfig(
                name=entry["name"],
                description=entry["description"],
                default=bool(entry.get("default", False)),
                source=where.pop("source", None),
                benchmark=where.pop("benchmark", None),
                with_workloads=bool(where.pop("with_workloads", False)),
            )
        )
        if where:
            raise DatasetError(f"dataset_configs.yaml: config {entry['name']}: unknown keys {sorted(where)}")
    return tuple(configs)


def get_config(name: str) -> DatasetConfig:
    """The config called `name`, or a DatasetError listing the known ones."""
    for config in dataset_configs():
        if config.name == name:
            return config
    known = ", ".join(c.name for c in dataset_configs())
    raise DatasetError(f"unknown config {name!r}; the configs are {known}")


def default_config() -> DatasetConfig:
    """The config a dataset folder or Hub id is read with when none is named (`default: true`, ms)."""
    return next(c for c in dataset_configs() if c.default)


@functools.cache
def _curated_count(spec: str) -> int:
    name, _, key = spec.partition(":")
    data = load_data(name, top=dict if key else list)
    return len(set(data[key] if key else data))


def curated_operator_counts() -> dict[str, int]:
    """Curated operators per source, from the curated lists themselves: the one place the counts come from."""
    return {s.name: _curated_count(s.curated) for s in sources() if s.curated}
