"""`kgb report RESULTS.jsonl [--html FILE]`: summary tables and an offline HTML page of speedups and SOL."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `report` command to `kgb`."""

    @app.command("report")
    def report(
        results: Path = typer.Argument(..., help="Results JSONL written by `kgb eval --out`."),
        html: Path | None = typer.Option(None, "--html", help="Also write a self-contained HTML page with plots."),
    ) -> None:
        """Summarize speedups (against the reference, the native library, torch.compile), fast_p and SOL."""
        from kernelgenbench.evaluator.report import (
            collect,
            platform_table,
            read_results,
            render_html,
            render_text,
        )

        torn: list[int] = []
        rows = read_results(results, torn)
        cands = collect(rows)
        if torn:
            typer.echo(f"{results}: left out {len(torn)} torn row(s) of a killed run (line "
                       f"{', '.join(map(str, torn[:5]))}{', ...' if len(torn) > 5 else ''})", err=True)
        typer.echo(render_text(cands))
        by_platform = platform_table(rows)  # a multi-platform run (kgb eval --ray --platforms all)
        if by_platform:
            typer.echo(by_platform)
        if html is not None:
            html.write_text(render_html(cands, title=f"kernelgenbench: {results.name}"))
            typer.echo(f"wrote {html}")
