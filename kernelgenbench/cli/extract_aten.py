"""`kgb extract aten` / `kgb-extract aten`: native_functions.yaml -> task records as JSON Lines."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kernelgenbench.cli.extract_common import check_out, ensure_group, progress, write_records


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `aten` command to `kgb extract` / `kgb-extract`."""
    ensure_group(extract_app)

    @extract_app.command("aten")
    def aten(
        source: Annotated[Path | None, typer.Option(
            "--source", help="Root of a PyTorch source tree (default: the yaml files packaged with the installed torch).")] = None,
        out: Annotated[str, typer.Option("--out", help="JSON Lines file to write, or '-' for stdout.")] = "aten.jsonl",
        only_curated: Annotated[bool, typer.Option(
            "--only-curated", help="Only the overloads of the 110 curated operators.")] = False,
        opinfo: Annotated[bool, typer.Option(
            "--opinfo/--no-opinfo", help="Trace OpInfo samples for correctness workloads (about a minute).")] = True,
        max_samples: Annotated[int, typer.Option(
            "--max-samples", min=1, help="Most OpInfo correctness workloads kept per task.")] = 8,
        progress_bars: Annotated[bool, typer.Option(
            "--progress/--no-progress", help="Show progress bars on stderr.")] = True,
        verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every schema mismatch too.")] = False,
    ) -> None:
        """Extract one task record per native function overload (all ~2,600 of them by default)."""
        from kernelgenbench.extractors.aten import extract

        check_out(out)
        with progress(progress_bars and sys.stderr.isatty()) as bars:
            result = extract(source, only_curated=only_curated, opinfo=opinfo, cap=max_samples, progress=bars.start)
        where = write_records(result.records, out)
        for skipped in result.skipped:
            typer.echo(f"skipped {skipped}", err=True)
        for invalid in result.invalid:
            typer.echo(f"invalid {invalid}", err=True)
        for mismatch in result.registered_mismatches if verbose else ():
            typer.echo(f"mismatch {mismatch}", err=True)
        typer.echo(f"{where}: {result.summary()}", err=True)
        if result.skipped or result.invalid or not result.records:
            raise typer.Exit(1)
