"""`kgb extract cublas` / `kgb-extract cublas`: cublas_api.h -> one task record per declared function."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kernelgenbench.cli.extract_common import check_out, ensure_group, write_records


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `cublas` command to `kgb extract` / `kgb-extract`."""
    ensure_group(extract_app)

    @extract_app.command("cublas")
    def cublas(
        version: Annotated[str, typer.Option(
            "--version", help="cuBLAS version whose header to fetch from its nvidia wheel (12.x or 13.x; "
                              "downloaded once into the cache).")] = "12.4",
        source: Annotated[Path | None, typer.Option(
            "--source", help="Directory holding cublas_api.h (a CUDA toolkit include dir or an unpacked "
                             "cuBLAS wheel); overrides --version.")] = None,
        out: Annotated[str, typer.Option("--out", help="JSON Lines file to write, or '-' for stdout.")] = "cublas.jsonl",
        only_curated: Annotated[bool, typer.Option("--only-curated", help="Only the 50 curated routines.")] = False,
    ) -> None:
        """Extract one task record per function declared in cublas_api.h (about 530 in 12.9)."""
        from kernelgenbench.extractors.cublas.headers import fetch, locate
        from kernelgenbench.extractors.cublas.records import extract

        check_out(out)
        headers = locate(source) if source is not None else fetch(version)
        result = extract(headers)
        records = [r for r in result.records if r["details"]["cublas"]["curated"] or not only_curated]
        write_records(records, out)
        h = result.header
        unresolved = [e.name for e in h.enums if not e.enumerators]
        curated = sum(r["details"]["cublas"]["curated"] for r in records)
        print(f"cublas {h.version} ({headers.api_header}): {len(h.functions)} functions, {len(records)} records "
              f"written ({curated} curated), {len(h.enums)} enums resolved"
              + (f", {len(unresolved)} without values: {', '.join(unresolved)}" if unresolved else "")
              + (f" -> {out}" if out != "-" else ""), file=sys.stderr)
        if headers.library_types is None:
            print("warning: no library_types.h beside the header: cudaDataType_t values are not resolved",
                  file=sys.stderr)
        for failure in result.failures:
            print(f"skipped: {failure}", file=sys.stderr)
        if result.failures:
            raise typer.Exit(1)
