"""`kgb extract aten` / `kgb-extract aten`: native_functions.yaml -> task records as JSON Lines."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from kernelgenbench.errors import KgbError


class _Bars:
    """One progress bar per stage of the extraction, on stderr so that `--out -` stays clean."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None

    def __call__(self, stage: str, total: int) -> Callable[[], None]:
        self.close()
        if not self.enabled or total <= 0:
            return lambda: None
        self.bar = typer.progressbar(length=total, label=f"{stage:<14}", file=sys.stderr)
        self.bar.__enter__()
        return lambda: self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `aten` command to `kgb extract` / `kgb-extract`."""
    if extract_app.registered_callback is None:
        # Typer runs a one-command app as that command (`kgb-extract --out ...`); a callback keeps
        # `kgb-extract aten` a subcommand while aten is the only extractor registered.
        @extract_app.callback()
        def _extract() -> None:
            """Read an upstream operator source and write task records as JSON Lines."""

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
        progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show progress bars on stderr.")] = True,
        verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every schema mismatch too.")] = False,
    ) -> None:
        """Extract one task record per native function overload (all ~2,600 of them by default)."""
        from kernelgenbench.dataset.record import canonical_json
        from kernelgenbench.extractors.aten import extract

        if out != "-" and not Path(out).parent.is_dir():
            raise KgbError(f"--out {out}: folder {Path(out).parent} does not exist; create it or pick another path")
        bars = _Bars(progress and sys.stderr.isatty())
        try:
            result = extract(source, only_curated=only_curated, opinfo=opinfo, cap=max_samples, progress=bars)
        finally:
            bars.close()
        text = "".join(canonical_json(r) + "\n" for r in result.records)
        if out == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            Path(out).write_text(text)
        for skipped in result.skipped:
            typer.echo(f"skipped {skipped}", err=True)
        for invalid in result.invalid:
            typer.echo(f"invalid {invalid}", err=True)
        for mismatch in result.registered_mismatches if verbose else ():
            typer.echo(f"mismatch {mismatch}", err=True)
        where = "stdout" if out == "-" else out
        typer.echo(f"{where}: {result.summary()}", err=True)
        if result.skipped or result.invalid or not result.records:
            raise typer.Exit(1)
