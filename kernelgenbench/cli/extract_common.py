"""What the `kgb extract <source>` commands share: the subcommand group, the --out check, progress on
stderr, and writing the records as canonical JSON Lines."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from kernelgenbench.errors import KgbError


def ensure_group(extract_app: typer.Typer) -> None:
    """Keep `kgb-extract <source>` a subcommand however many extractors are registered.

    Typer runs a one-command app as that command (`kgb-extract --out ...`); a callback prevents that.
    """
    if extract_app.registered_callback is None:
        @extract_app.callback()
        def _extract() -> None:
            """Read an upstream operator source and write task records as JSON Lines."""


def check_out(out: str) -> None:
    """Refuse, before any work, an --out whose folder does not exist ('-' is stdout)."""
    if out != "-" and not Path(out).parent.is_dir():
        raise KgbError(f"--out {out}: folder {Path(out).parent} does not exist; create it or pick another path")


def write_records(records: Iterable[Mapping[str, Any]], out: str) -> str:
    """Write records as canonical JSON Lines to `out` ('-': stdout); what to call the destination in messages."""
    from kernelgenbench.dataset.record import canonical_json

    text = "".join(canonical_json(r) + "\n" for r in records)
    if out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return "stdout"
    Path(out).write_text(text, encoding="utf-8")
    return out


class Progress:
    """One progress bar per stage on stderr (so that `--out -` stays clean); off when not `enabled`.

    Extractors report progress in one of two ways: `start(stage, total)` returns a function to call once
    per item (ATen), `update(stage, done, total)` says how far a stage is (vLLM; stages other than
    `bar_stage` are printed as one line each).
    """

    def __init__(self, enabled: bool, bar_stage: str | None = None) -> None:
        self.enabled = enabled
        self.bar_stage = bar_stage
        self.bar: Any = None
        self.stage = ""
        self.done = 0

    def start(self, stage: str, total: int, label: str | None = None) -> Callable[[], None]:
        """Open the bar of a new stage of `total` items; the function advances it by one."""
        self.close()
        self.stage = stage
        if not self.enabled or total <= 0:
            return lambda: None
        self.bar = typer.progressbar(length=total, label=label or f"{stage:<14}", file=sys.stderr)
        self.bar.__enter__()
        return lambda: self.bar.update(1)

    def update(self, stage: str, done: int, total: int) -> None:
        """Stage `stage` has done `done` of `total` items."""
        if not self.enabled:
            return
        if stage != self.stage:
            if self.bar_stage is not None and stage != self.bar_stage:
                self.close()
                self.stage = stage
                typer.echo(f"reading {stage} ...", err=True)
            else:
                self.start(stage, max(total, 1), label=stage)
        if self.bar is not None and done > self.done:
            self.bar.update(done - self.done)
            self.done = done

    def close(self) -> None:
        """Close the open bar, if any."""
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
        self.done = 0


@contextmanager
def progress(enabled: bool, bar_stage: str | None = None) -> Iterator[Progress]:
    """A Progress closed when the block ends, however it ends."""
    p = Progress(enabled, bar_stage)
    try:
        yield p
    finally:
        p.close()
