"""The one exception root of kernelgenbench and its subclasses.

The CLI turns any ``KgbError`` into a one-line message and a non-zero exit; anything else is a bug.
Each subclass also inherits the built-in it means, so callers can catch either.
"""

from __future__ import annotations

from kernelgenbench.locations import Location, mark_located


class KgbError(Exception):
    """Base of every error kernelgenbench raises on purpose (bad input, missing source, ...)."""


class SourceNotFound(KgbError, FileNotFoundError):
    """An upstream source (a checkout, a header, a dataset folder) is missing or is not what was asked."""


class SourceParseError(KgbError, ValueError):
    """An upstream or data file could not be parsed; the message starts with its place ('file:line: ...').

    Pass the place as `at=Location(...)`, or raise without one inside `locations.context(...)`, which puts
    the place in front. `file=`/`line=` are the older spelling of `at=` and mean the same.
    """

    def __init__(self, message: str, *, at: Location | None = None, file: str | None = None,
                 line: int | None = None) -> None:
        if at is None and file:
            at = Location(file, line)
        super().__init__(at.message(message) if at is not None else message)
        self.file = at.file if at is not None else None
        self.line = at.line if at is not None else None
        if at is not None:
            mark_located(self, at)

    @property
    def location(self) -> Location | None:
        """Where the problem is, when known."""
        return Location(self.file, self.line) if self.file else None

    @property
    def reason(self) -> str:
        """The message without its place in front."""
        text = str(self)
        where = self.location
        return text.removeprefix(f"{where}: ") if where is not None else text


class RecordInvalid(KgbError, ValueError):
    """A task record does not satisfy the record schema; the message names the record id and the first error."""

    def __init__(self, record_id: str, error: str) -> None:
        super().__init__(f"record {record_id}: {error}")
        self.record_id = record_id
        self.error = error


class NetworkUnavailable(KgbError, ConnectionError):
    """A download or remote lookup was needed and the remote could not be reached."""


class DatasetError(KgbError, ValueError):
    """A dataset folder or Hub repository is missing, malformed, or lacks the asked config/split/task."""


class CandidateError(KgbError, ValueError):
    """A solutions file or directory is malformed (not a verdict on a candidate: those are statuses)."""


class NotAuthenticated(KgbError, PermissionError):
    """A remote operation needs credentials (a Hugging Face token) and none were found or they were refused."""


class BuildFailed(DatasetError):
    """The dataset build found bad input records; nothing was written. `problems` lists each, one line apiece."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the input records, nothing was written; first: {problems[0]}")
        self.problems = tuple(problems)
