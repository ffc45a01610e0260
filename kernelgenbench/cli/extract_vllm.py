"""`kgb extract vllm` / `kgb-extract vllm`: vLLM custom ops at a revision -> task records as JSON Lines."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from kernelgenbench.errors import KgbError


class _Bar:
    """A progress bar on stderr for the record stage (so that `--out -` stays clean); stages as lines."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None
        self.done = 0
        self.stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if stage != self.stage:
            self.close()
            self.stage = stage
            if stage != "records":
                typer.echo(f"reading {stage} ...", err=True)
            else:
                self.bar = typer.progressbar(length=max(total, 1), label="records", file=sys.stderr)
                self.bar.__enter__()
        if self.bar is not None and done > self.done:
            self.bar.update(done - self.done)
            self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `vllm` command to `kgb extract` / `kgb-extract`."""
    if extract_app.registered_callback is None:
        # A one-command Typer app runs as that command; a callback keeps `kgb-extract vllm` a subcommand.
        @extract_app.callback()
        def _extract() -> None:
            """Read an upstream operator source and write task records as JSON Lines."""

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
        progress: Annotated[bool, typer.Option("--progress/--no-progress", help="Show progress on stderr.")] = True,
    ) -> None:
        """Extract one task record per registered vLLM op, with references for the curated ones."""
        from kernelgenbench.dataset.record import canonical_json
        from kernelgenbench.extractors.vllm.extract import extract
        from kernelgenbench.extractors.vllm.records import SourceInfo
        from kernelgenbench.extractors.vllm.resolve import (
            DEFAULT_REPO_URL,
            default_cache_dir,
            resolve_rev,
            resolve_source,
        )

        if out != "-" and not Path(out).parent.is_dir():
            raise KgbError(f"--out {out}: folder {Path(out).parent} does not exist; create it or pick another path")
        cache = cache_dir or default_cache_dir()
        if source is not None:
            resolved = resolve_source(source, cache)
        else:
            resolved = resolve_rev(rev, repo_url or DEFAULT_REPO_URL, cache)
        if resolved.note:
            typer.echo(resolved.note, err=True)
        bar = _Bar(progress)
        try:
            result = extract(resolved.root, SourceInfo(resolved.version, resolved.commit), progress=bar)
        finally:
            bar.close()
        text = "".join(canonical_json(r) + "\n" for r in result.records)
        if out == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            Path(out).write_text(text, encoding="utf-8")
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
