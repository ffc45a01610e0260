"""`kgb extract vllm` / `kgb-extract vllm`: vLLM custom ops at a revision -> task records as JSON Lines."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from kernelgenbench.cli.extract_common import check_out, ensure_group, progress, write_records


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `vllm` command to `kgb extract` / `kgb-extract`."""
    ensure_group(extract_app)

    @extract_app.command("vllm")
    def vllm(
        rev: Annotated[str, typer.Option(
            "--rev", help="Branch, tag or commit of --repo-url (without git: a vX.Y.Z tag falls back to its sdist, a branch to the newest release's).")] = "main",
        repo_url: Annotated[str | None, typer.Option(
            "--repo-url", help="Git repository (URL or local path); default: the upstream vLLM repository.")] = None,
        source: Annotated[Path | None, typer.Option(
            "--source", help="A vLLM checkout, unpacked sdist, or sdist .tar.gz (instead of --rev).")] = None,
        out: Annotated[str, typer.Option("--out", help="JSON Lines file to write, or '-' for stdout.")] = "vllm.jsonl",
        cache_dir: Annotated[Path | None, typer.Option(
            "--cache-dir", help="Download cache (default: $KGB_CACHE_DIR or ~/.cache/kernelgenbench).")] = None,
        progress_bars: Annotated[bool, typer.Option(
            "--progress/--no-progress", help="Show progress on stderr.")] = True,
    ) -> None:
        """Extract one task record per registered vLLM op, with references for the curated ones."""
        from kernelgenbench.extractors.vllm.extract import extract
        from kernelgenbench.extractors.vllm.records import SourceInfo

        check_out(out)
        resolved = _resolve(rev, repo_url, source, cache_dir)
        with progress(progress_bars, bar_stage="records") as bars:
            result = extract(resolved.root, SourceInfo(resolved.version, resolved.commit), progress=bars.update)
        write_records(result.records, out)
        _report(result, out)


def _resolve(rev: str, repo_url: str | None, source: Path | None, cache_dir: Path | None) -> Any:
    """The vLLM tree to read: --source, else --rev of --repo-url, resolved into the cache."""
    from kernelgenbench.extractors.vllm.resolve import (
        DEFAULT_REPO_URL,
        default_cache_dir,
        resolve_rev,
        resolve_source,
    )

    cache = cache_dir or default_cache_dir()
    if source is not None:
        resolved = resolve_source(source, cache)
    else:
        resolved = resolve_rev(rev, repo_url or DEFAULT_REPO_URL, cache)
    if resolved.note:
        typer.echo(resolved.note, err=True)
    return resolved


def _report(result: Any, out: str) -> None:
    """The extraction's summary and problems on stderr; exit 1 when a record is invalid or a curated op lost."""
    for c in result.curated:
        if c.state in ("schema_mismatch", "absent", "removed"):
            typer.echo(f"curated {c.name}: {c.state}: {c.detail}", err=True)
    typer.echo(result.summary() + ("" if out == "-" else f"; wrote {out}"), err=True)
    lost = result.lost_curated
    if lost:
        typer.echo(f"kgb-extract: error: curated op(s) {', '.join(c.name for c in lost)} absent while "
                   f"{len(result.unreadable)} registration(s) could not be read ({result.unreadable[0]})",
                   err=True)
    if result.invalid or lost:
        raise typer.Exit(1)
