"""`kgb build`: validate task records and write the Hub-layout dataset folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kernelgenbench.errors import BuildFailed, KgbError


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `build` command to `kgb`."""

    @app.command("build")
    def build(
        out: Annotated[Path, typer.Option("--out", help="Dataset folder to write (replaced if a previous build wrote it).")],
        paths: Annotated[list[Path] | None, typer.Argument(
            help="More JSONL files or folders (so `--tasks a.jsonl b.jsonl` works).")] = None,
        tasks: Annotated[list[Path] | None, typer.Option(
            "--tasks", help="A JSONL file of task records, or a folder of them (repeatable).")] = None,
        card_template: Annotated[Path | None, typer.Option(
            "--card-template", help="Card template (default: cards/dataset_card.md.j2 of the checkout).")] = None,
        repo_id: Annotated[str | None, typer.Option(
            "--repo-id", help="Hub id the card's examples load from (default ORG/kernelgenbench).")] = None,
    ) -> None:
        """Validate every record of the inputs and write parquet per config, README.md and manifest.json.

        Nothing is written unless every record is valid and every id is unique; each bad record is listed
        with its file, line, id and first error. Two builds of the same records are byte-identical.
        """
        from kernelgenbench.dataset.build import build_dataset

        inputs = [*(tasks or []), *(paths or [])]
        if not inputs:
            raise KgbError("no task records given: pass at least one JSONL file or folder (--tasks aten.jsonl)")
        try:
            result = build_dataset(inputs, out, card_template=card_template, repo_id=repo_id)
        except BuildFailed as exc:
            for problem in exc.problems:
                typer.echo(problem, err=True)
            raise
        typer.echo(f"wrote {result.out}: {result.published} of {result.records} records published"
                   + (f" ({result.unpublished} in no config: neither curated nor with a workload)"
                      if result.unpublished else ""))
        for f in result.files:
            typer.echo(f"  {f.name:<9} {f.rows:>6} rows  {f.path}")
        for warning in result.warnings:
            typer.echo(f"  warning: {warning}")
