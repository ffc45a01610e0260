"""Render the dataset card (README.md with YAML front matter) from the template in `cards/`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import yaml
from datasets import List, Value

from kernelgenbench.dataset.configs import SPLIT, DatasetConfig
from kernelgenbench.dataset.manifest import ConfigFile, upstreams
from kernelgenbench.dataset.rows import COLUMN_DOCS, FEATURES, JSON_FIELDS
from kernelgenbench.errors import DatasetError, SourceNotFound
from kernelgenbench.sources import sources

CARD_TEMPLATE_NAME = "dataset_card.md.j2"
PRETTY_NAME = "KernelGenBench: operator tasks for Triton kernels"
PLACEHOLDER_REPO = "ORG/kernelgenbench"


def default_card_template() -> Path:
    """The card template shipped with the package (`cards/dataset_card.md.j2`, linked into kernelgenbench/data)."""
    # cards/ is where the template is edited; a link in kernelgenbench/data makes wheels carry it (setuptools
    # copies the file a link points to), so `kgb build` works after a plain, non-editable install too.
    path = Path(str(resources.files("kernelgenbench.data") / CARD_TEMPLATE_NAME))
    if not path.is_file():
        raise SourceNotFound(f"{path}: card template not found; pass --card-template PATH (a {CARD_TEMPLATE_NAME})")
    return path


def size_category(n: int) -> str:
    """The Hub's size category for n rows."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")]
    return next((label for bound, label in bounds if n < bound), "n>1M")


def front_matter(written: Sequence[tuple[DatasetConfig, ConfigFile]], n_tasks: int) -> dict[str, Any]:
    """The YAML front matter: configs with their data files, license, categories, size, name, tags."""
    return {
        "pretty_name": PRETTY_NAME,
        "license": "apache-2.0",
        "task_categories": ["text-generation"],
        "language": ["en"],
        "tags": ["code", "triton", "gpu-kernels", "kernel-generation", "benchmark",
                 *dict.fromkeys(s.upstream for s in sources())],
        "size_categories": [size_category(n_tasks)],
        "configs": [
            {
                "config_name": config.name,
                **({"default": True} if config.default else {}),
                "data_files": [{"split": f.split, "path": f.path}],
            }
            for config, f in written
        ],
    }


def _type_text(feature: Any) -> str:
    if isinstance(feature, Value):
        return feature.dtype
    if isinstance(feature, List):
        return f"list of {_type_text(feature.feature)}"
    if isinstance(feature, dict):
        return "struct {" + ", ".join(f"{k}: {_type_text(v)}" for k, v in feature.items()) + "}"
    return type(feature).__name__


def _operator(record: Mapping[str, Any]) -> str:
    # ATen overloads of one curated operator share it (add.Tensor, add.out, add_.Tensor -> add), and so do
    # the registered vLLM ops one curated name stands for (scaled_fp8_quant: its static, dynamic and
    # per-token ops): operators are counted as the curated lists count them (configs.curated_operator_counts).
    details = record["details"].get(record["source"]) or {}
    return details.get("curated_name") or record["name"]


def _curated_summary(config: str, curated: Sequence[Mapping[str, Any]]) -> str:
    """'config `ms` holds N operators as M tasks: ...', one phrase per source (its card text)."""
    operators = {(r["source"], _operator(r)) for r in curated}
    phrases = [s.card_text.format(operators=sum(1 for src, _ in operators if src == s.name), title=s.title,
                                  tasks=sum(1 for r in curated if r["source"] == s.name)) for s in sources()]
    listed = ", ".join(phrases[:-1]) + " and " + phrases[-1] if len(phrases) > 1 else "".join(phrases)
    return f"config `{config}` holds {len(operators)} operators as {len(curated)} tasks: {listed}."


def card_context(
    records: Sequence[Mapping[str, Any]],
    written: Sequence[tuple[DatasetConfig, ConfigFile]],
    omitted: Mapping[str, str],
    *,
    builder_version: str,
    repo_id: str = PLACEHOLDER_REPO,
) -> dict[str, Any]:
    """Everything the template shows, computed from the records and the written configs."""
    members = {config.name: [r for r in records if config.contains(r)] for config, _ in written}
    default = next((c.name for c, _ in written if c.default), written[0][0].name)
    category_config = "ms" if "ms" in members else default
    return {
        "front_matter": yaml.safe_dump(front_matter(written, len({r["id"] for m in members.values() for r in m})),
                                       sort_keys=False, allow_unicode=True),
        "pretty_name": PRETTY_NAME,
        "builder_version": builder_version,
        "record_versions": ", ".join(str(v) for v in sorted({r["record_version"] for r in records})),
        "repo_id": repo_id,
        "default_config": default,
        "configs": [
            {"name": c.name, "default": c.default, "rows": f.rows, "description": c.description, "rule": c.rule}
            for c, f in written
        ],
        "omitted": dict(omitted),
        "source_columns": [c.name for c, _ in written],
        "sources": [
            {"name": s, "counts": [sum(1 for r in members[c.name] if r["source"] == s) for c, _ in written]}
            for s in (src.name for src in sources())
            if any(r["source"] == s for r in records)
        ],
        **_categories(members[category_config], category_config),
        "upstreams": upstreams(records),
        "columns": [
            {
                "name": name,
                "type": "JSON text" if name in JSON_FIELDS else _type_text(feature),
                "doc": COLUMN_DOCS[name],
            }
            for name, feature in FEATURES.items()
        ],
        "license_text": "the Apache-2.0 license",
        "split": SPLIT,
    }


def _categories(curated: Sequence[Mapping[str, Any]], category_config: str) -> dict[str, Any]:
    """The card's curated summary line and its category table, from the records of `category_config`."""
    categories = sorted({r["category"] for r in curated})
    by_cat = Counter((r["category"], r["source"]) for r in curated)
    names = [s.name for s in sources()]
    category_sources = [s for s in names if any(r["source"] == s for r in curated)]
    curated_summary = _curated_summary(category_config, curated)
    return {
        "curated_summary": curated_summary,
        "category_config": category_config,
        "category_sources": category_sources,
        "categories": [
            {
                "category": cat,
                "counts": [by_cat[(cat, s)] for s in category_sources],
                "total": sum(by_cat[(cat, s)] for s in category_sources),
            }
            for cat in categories
        ],
    }


def render_card(template: Path, context: Mapping[str, Any]) -> str:
    """The README.md text: the template rendered with the context (unknown names are errors)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template.parent)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    try:
        return env.get_template(template.name).render(**context)
    except jinja2.TemplateError as exc:
        raise DatasetError(f"{template}: cannot render the card template: {exc}") from exc


def check_front_matter(text: str, config_names: Sequence[str]) -> None:
    """Fail unless the card starts with YAML front matter whose `configs` are exactly `config_names`."""
    # A custom template can break the front matter; the Hub and datasets would then see no configs at all.
    parts = text.split("---\n", 2)
    if not text.startswith("---\n") or len(parts) < 3:
        raise DatasetError("the rendered card does not start with YAML front matter between '---' lines; fix the template")
    try:
        meta = yaml.safe_load(parts[1]) or {}
    except yaml.YAMLError as exc:
        raise DatasetError(f"the rendered card's front matter is not YAML ({exc}); fix the template") from exc
    got = [c.get("config_name") for c in meta.get("configs", [])] if isinstance(meta, dict) else []
    if got != list(config_names):
        raise DatasetError(f"the rendered card's front matter lists configs {got}, expected {list(config_names)}; "
                           "fix the template")
