"""`kgb prompt`: print what a kernel writer needs to implement one task."""

from __future__ import annotations

import enum
import json
import os
from pathlib import Path
from typing import Annotated

import typer

from kernelgenbench.errors import DatasetError

DATASET_ENV = "KGB_DATASET"


class Format(enum.Enum):
    """Output formats of `kgb prompt`."""

    TEXT = "text"
    JSON = "json"


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `prompt` command to `kgb`."""

    @app.command("prompt")
    def prompt(
        task_id: Annotated[str, typer.Argument(
            help="Task id, e.g. aten/add.Tensor, vllm/rms_norm, cublas/cublasSgemm_v2.")],
        dataset: Annotated[str | None, typer.Option(
            "--dataset",
            help=f"Hub id, dataset folder (`kgb build --out`) or JSONL of records; default ${DATASET_ENV}.")] = None,
        config: Annotated[str | None, typer.Option(
            "--config", help="Config to look the task up in; default: ms for a dataset folder or Hub id, every "
                             "record of a JSONL.")] = None,
        split: Annotated[str, typer.Option("--split", help="Split of the config.")] = "test",
        revision: Annotated[str | None, typer.Option("--revision", help="Hub revision (branch, tag or commit).")] = None,
        fmt: Annotated[Format, typer.Option(
            "--format", help="text (Markdown) or json (every part, plus `text`).")] = Format.TEXT,
    ) -> None:
        """Print what a kernel writer (a person or an LLM) needs to implement one task.

        That is: the entry point and its Python signature, the semantics, the reference source, the dtypes and
        shapes it is tested on, the tolerance, what is forbidden and the platform. The dataset is --dataset, else the KGB_DATASET environment variable; without either this fails and
        says what to pass.
        """
        from kernelgenbench.dataset.load import load_tasks
        from kernelgenbench.evaluator.prompt import build_prompt

        source = dataset or os.environ.get(DATASET_ENV)
        if not source:
            raise DatasetError(f"no dataset given: pass --dataset PATH_OR_REPO_ID (a `kgb build` folder, a Hub id or "
                               f"a JSONL of records) or set {DATASET_ENV}")
        match = load_tasks(source, config=config, split=split, revision=revision, ids=[task_id])
        if not match:
            tasks = load_tasks(source, config=config, split=split, revision=revision)
            near = sorted(t.id for t in tasks if task_id.split("/")[-1].split(".")[0] in t.id)[:5]
            is_file = Path(source).expanduser().is_file()
            where = source if is_file and config is None else f"{source} config {config or 'ms'}"
            hint = f"; similar: {', '.join(near)}" if near else "; try --config aten-all for uncurated ATen tasks"
            raise DatasetError(f"task {task_id} is not in {where} ({len(tasks)} tasks){hint}")
        rendered = build_prompt(match[0])
        if fmt is Format.JSON:
            typer.echo(json.dumps(rendered.to_json(), indent=2, ensure_ascii=False))
        else:
            typer.echo(rendered.text, nl=False)
