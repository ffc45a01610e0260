"""`kgb trace [--models ...] [--out FILE] [--rank]`: aten calls of real architectures, on the meta device."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `trace` command to `kgb`."""

    @app.command("trace")
    def trace(
        models: list[str] | None = typer.Option(None, "--models", help="Architectures to trace (default: all)."),
        out: Path | None = typer.Option(None, "--out", help="Write the summary here (JSON)."),
        rank: bool = typer.Option(False, "--rank", help="Print operators by frequency and the curated ones' ranks."),
        data: Path | None = typer.Option(None, "--data", help="Rank this summary instead of tracing."),
        top: int = typer.Option(60, "--top", help="Rows of the ranking to print (0: all)."),
    ) -> None:
        """Trace one step of each architecture: batch preparation, training step, optimizer step, sampling
        (needs `transformers`); or rank a summary."""
        from kernelgenbench.extractors.aten.data_files import curated_names
        from kernelgenbench.trace import data as trace_data
        from kernelgenbench.trace.rank import render

        if rank and out is None and not models:
            summary = trace_data.read(data) if data else trace_data.load()
        else:
            summary = _trace(models, out)
        if rank:
            typer.echo(render(summary, curated_names(), top or None))


def _trace(models: list[str] | None, out: Path | None) -> dict:
    import torch

    from kernelgenbench.trace import data as trace_data
    from kernelgenbench.trace.run import trace_models
    from kernelgenbench.trace.summary import summarize

    traced = trace_models(models, on_model=lambda n: typer.echo(f"tracing {n}", err=True))
    import transformers

    summary = trace_data.validate(summarize(traced, torch_version=torch.__version__.split("+")[0],
                                            transformers_version=transformers.__version__))
    text = trace_data.dumps(summary)
    if out is not None:
        out.write_text(text)
        typer.echo(f"wrote {out}: {len(summary['models'])} architectures, {len(summary['ops'])} overloads",
                   err=True)
    else:
        typer.echo(text, nl=False)
    return summary
