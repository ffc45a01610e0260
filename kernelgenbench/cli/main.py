"""The `kgb` app and the `kgb-extract` alias; subcommand modules register themselves on the apps here."""

from __future__ import annotations

import importlib
import sys

import typer

from kernelgenbench.errors import KgbError
from kernelgenbench.sources import sources

app = typer.Typer(
    name="kgb",
    help="kernelgenbench: extract operator tasks, build the dataset, and score Triton kernels.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
extract_app = typer.Typer(
    name="kgb-extract",
    help="Read an upstream operator source and write task records as JSON Lines.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(extract_app, name="extract")

# Each module defines `register(app, extract_app)`; adding a subcommand means adding its module here. The
# `kgb extract <source>` commands come from the source registry: a source brings its own.
_COMMAND_MODULES = (
    *(s.cli for s in sources() if s.cli),
    "kernelgenbench.cli.build",
    "kernelgenbench.cli.publish",
    "kernelgenbench.cli.prompt",
    "kernelgenbench.cli.eval",
    "kernelgenbench.cli.report",
    "kernelgenbench.cli.trace",
)

for _name in _COMMAND_MODULES:
    importlib.import_module(_name).register(app, extract_app)


def _run(typer_app: typer.Typer, prog: str) -> None:
    from kernelgenbench.cli.eval import fill_optional_values

    sys.argv[1:] = fill_optional_values(sys.argv[1:])  # `kgb eval --ray` alone: a local Ray instance
    try:
        typer_app(prog_name=prog)
    except KgbError as exc:
        # Bad input is the user's to fix: one line, no traceback.
        print(f"{prog}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def main() -> None:
    """Entry point of `kgb`."""
    _run(app, "kgb")


def extract_main() -> None:
    """Entry point of `kgb-extract` (the same as `kgb extract`)."""
    _run(extract_app, "kgb-extract")
