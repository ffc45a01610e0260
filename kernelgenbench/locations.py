"""Where something was read from, and one way to put that place in front of any error raised while reading it.

`Location` is a file with an optional 1-based line and column; it prints as `file:line:column` (the parts it
has). `context(where)` is torchgen's `context()` turned round so that messages keep the one-line
`file:line: what went wrong; what to do` shape: any exception raised inside the block gets `where` put in
front of its message, unless a `context` nearer to the raise (or the raise itself) already placed it. The
innermost place is the most precise one, so it wins:

    with context(Location(path)):                 # the file, for errors with no better place
        for entry in entries:
            with context(lambda: Location(path, entry.line)):
                check(entry)                       # raise SourceParseError("unknown key 'x'")
    # -> SourceParseError: path:12: unknown key 'x'

This module imports nothing of kernelgenbench (errors.py builds on it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_PLACED = "__kgb_location__"  # set on an exception once its message starts with its place


@dataclass(frozen=True)
class Location:
    """A place in an upstream or data file: path as given, 1-based line and column when known."""

    file: str
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        text = self.file
        if self.line:
            text += f":{self.line}"
            if self.column:
                text += f":{self.column}"
        return text

    def at(self, line: int | None, column: int | None = None) -> Location:
        """The same file at another line (and column)."""
        return Location(self.file, line, column)

    def message(self, text: str) -> str:
        """`text` in the one-line shape every located error has: 'file:line: text'."""
        return f"{self}: {text}"


def location_of(exc: BaseException) -> Location | None:
    """The place an exception's message was put at (by `context` or a located raise), or None."""
    loc = getattr(exc, _PLACED, None)
    return loc if isinstance(loc, Location) else None


def mark_located(exc: BaseException, where: Location) -> None:
    """Record that `exc`'s message already starts with `where` (outer `context` blocks leave it alone)."""
    try:
        setattr(exc, _PLACED, where)
    except AttributeError:  # an exception type with __slots__: it can only be placed once anyway
        pass


def place(exc: BaseException, where: Location) -> None:
    """Put `where` in front of `exc`'s message, once; exceptions placed before keep their own place."""
    if location_of(exc) is not None:
        return
    if exc.args and isinstance(exc.args[0], str):
        exc.args = (where.message(exc.args[0]), *exc.args[1:])
    else:
        exc.args = (where.message(str(exc) or type(exc).__name__), *exc.args[1:])
    if hasattr(exc, "file") and hasattr(exc, "line"):  # SourceParseError keeps its place as fields too
        exc.file, exc.line = where.file, where.line  # type: ignore[attr-defined]
    mark_located(exc, where)


@contextlib.contextmanager
def context(where: Location | Callable[[], Location]) -> Iterator[None]:
    """Prefix the message of any exception raised inside with `where` (a Location, or a function making one)."""
    try:
        yield
    except Exception as exc:
        place(exc, where() if callable(where) else where)
        raise
