"""`kgb extract aten` (placeholder registration until the ATen extractor lands)."""

from __future__ import annotations

import typer


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `aten` command to `kgb extract` / `kgb-extract`."""

    @extract_app.command("aten")
    def aten() -> None:
        """Extract every ATen overload of the installed torch."""
        raise typer.Exit(1)
